import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workerCommand } from "./worker-build.ts";

/** A repository shaped like ours: the worker's entry imports a module of another package that finds a file next to itself. */
function fixture(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "kappa-worker-build-"));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  write("package.json", JSON.stringify({ name: "fixture", type: "module" }));
  write("packages/catalog/src/where.ts", 'import { fileURLToPath } from "node:url";\nexport const where = (): string => fileURLToPath(import.meta.url);\n');
  write("packages/worker/src/value.ts", "export const VALUE: number = 1;\n");
  write("packages/worker/src/main.ts", 'import { where } from "../../catalog/src/where.ts";\nimport { VALUE } from "./value.ts";\nconsole.log(JSON.stringify({ where: where(), value: VALUE }));\n');
  return root;
}

function run(root: string, args: string[]): { where: string; value: number } {
  return JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: "utf8" })) as { where: string; value: number };
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("the worker bundle for npm start", () => {
  it("is built once, reused while the sources are unchanged, rebuilt when one changes, and keeps each module's own location", async () => {
    const root = fixture();
    roots.push(root);

    const first = await workerCommand(root);
    expect(first.how).toBe("bundled");
    expect(run(root, first.args)).toEqual({ where: path.join(root, "packages/catalog/src/where.ts"), value: 1 });

    expect((await workerCommand(root)).how).toBe("cached");

    writeFileSync(path.join(root, "packages/worker/src/value.ts"), "export const VALUE: number = 2;\n");
    const changed = await workerCommand(root);
    expect(changed.how).toBe("bundled");
    expect(run(root, changed.args).value).toBe(2);

    // A file the graph did not contain before enters through an import in one it did.
    writeFileSync(path.join(root, "packages/worker/src/three.ts"), "export const THREE: number = 3;\n");
    writeFileSync(path.join(root, "packages/worker/src/value.ts"), 'export { THREE as VALUE } from "./three.ts";\n');
    expect(run(root, (await workerCommand(root)).args).value).toBe(3);
    writeFileSync(path.join(root, "packages/worker/src/three.ts"), "export const THREE: number = 33;\n");
    expect(run(root, (await workerCommand(root)).args).value).toBe(33);
  });

  it("runs the sources under tsx when the bundle would load another copy of a package than its importer does", async () => {
    const root = fixture();
    roots.push(root);
    for (const dir of ["node_modules/left-pad", "packages/worker/node_modules/left-pad"]) {
      mkdirSync(path.join(root, dir), { recursive: true });
      writeFileSync(path.join(root, dir, "package.json"), JSON.stringify({ name: "left-pad", type: "module", main: "index.js" }));
      writeFileSync(path.join(root, dir, "index.js"), `export default ${JSON.stringify(dir)};\n`);
    }
    writeFileSync(path.join(root, "packages/catalog/src/where.ts"), 'import pad from "left-pad";\nexport const where = (): string => pad;\n');

    const command = await workerCommand(root);
    expect(command.how).toBe("tsx");
    expect(command.detail).toContain("left-pad (imported by packages/catalog/src/where.ts)");
    expect(command.args).toEqual(["--import", "tsx", path.join(root, "packages/worker/src/main.ts")]);
  });
});
