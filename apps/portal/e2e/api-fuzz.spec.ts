import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Browser } from "@playwright/test";
import { test } from "./fixtures";
import { DEMO_PASSWORD, ROLES, type Role } from "./roles";

/*
 * The API document must be true (issue 30, findings 16–19): schemathesis, the
 * property-based API tester (from PyPI, pinned and installed once into the
 * engines cache by `npm run fetch -w packages/engines`), generates requests
 * from /api/v1/openapi.json — valid and invalid ones — and checks every answer
 * against the document (`--checks all`: no 5xx, documented statuses, content
 * types and bodies, valid data accepted, invalid data refused, auth not
 * ignored; undeclared methods answered 405 with Allow in the coverage phase), signed in with an API
 * token of each role. It runs as a separate program (packages/engines), as the
 * portal depends on no engine.
 *
 * In `npm test`: the project `api-fuzz` runs after the journeys against the
 * same portal (playwright.config.ts), the four roles side by side, each with
 * KAPPA_API_FUZZ_EXAMPLES examples per operation (default 2) in the phases
 * KAPPA_API_FUZZ_PHASES (default `fuzzing`: generated valid and invalid
 * requests; `coverage` adds schemathesis's boundary and unexpected-method
 * cases, ~15 times the requests) and a fixed seed (KAPPA_API_FUZZ_SEED), so
 * CI sends the same requests every run. `npm run test:api-fuzz` runs it alone.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
/** Sends each role's token as a header from the environment (KAPPA_API_FUZZ_TOKEN). */
const CONFIG = path.join(import.meta.dirname, "api-fuzz.schemathesis.toml");
const EXAMPLES = Number(process.env.KAPPA_API_FUZZ_EXAMPLES ?? 2);
const SEED = Number(process.env.KAPPA_API_FUZZ_SEED ?? 30);
const PHASES = process.env.KAPPA_API_FUZZ_PHASES ?? "fuzzing";
const FUZZED: Role[] = ["ordersOwner", "ordersMember", "reviewer", "admin"];

// An upper bound on a loaded machine, not a speed target (CI: about two minutes for the four roles).
test.describe.configure({ timeout: 20 * 60_000 });

/** Runs still going when the test ends (a timeout) are stopped, so none keeps loading the portal. */
const running = new Set<ChildProcess>();
test.afterEach(() => {
  for (const child of running) child.kill("SIGTERM");
});

/** An API token of `role` carrying every scope the role may grant (created through the API, as a user would). */
async function tokenFor(browser: Browser, role: Role): Promise<string> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(ROLES[role]);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("current-user")).toContainText(ROLES[role]);
  const { grantableScopes } = (await (await page.request.get("/api/v1/tokens")).json()) as { grantableScopes: string[] };
  const created = await page.request.post("/api/v1/tokens", { data: { name: `api fuzz ${role} ${Date.now()}`, scopes: grantableScopes, expiresInDays: 1 } });
  expect(created.status(), await created.text()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  await context.close();
  return token;
}

/** The pinned schemathesis (installed into the engines cache on first use) with `args`: its exit code and output. */
function schemathesis(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "schemathesis", "-w", "packages/engines", "--", ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    child.on("close", () => running.delete(child));
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, output }));
  });
}

/** One role's run against the portal's document. */
async function fuzzAs(baseURL: string, role: Role, token: string, reportDir: string): Promise<{ code: number; output: string }> {
  const args = [
    // The token reaches schemathesis through its environment (the config file names it), never in argv.
    "--config-file",
    CONFIG,
    "run",
    `${baseURL}/api/v1/openapi.json`,
    "--checks",
    "all",
    "--phases",
    PHASES,
    "--max-examples",
    String(EXAMPLES),
    "--seed",
    String(SEED),
    "--generation-database",
    "none",
    "--workers",
    "1",
    "--request-timeout",
    "60",
    "--no-color",
    "--report",
    "junit",
    "--report-junit-path",
    path.join(reportDir, `${role}.xml`),
  ];
  const run = await schemathesis(args, { KAPPA_API_FUZZ_TOKEN: token });
  return { code: run.code, output: run.output.replaceAll(token, "<token>") };
}

test("the API answers as /api/v1/openapi.json says, for every role (schemathesis --checks all)", async ({ browser, baseURL }, testInfo) => {
  const tokens = new Map<Role, string>();
  for (const role of FUZZED) tokens.set(role, await tokenFor(browser, role));
  const reportDir = testInfo.outputPath("schemathesis");
  mkdirSync(reportDir, { recursive: true });
  // Installed (once, into the engines cache) before the roles' runs start side by side.
  const version = await schemathesis(["--version"]);
  expect(version.code, version.output).toBe(0);
  const started = Date.now();
  const runs = await Promise.all(FUZZED.map(async (role) => ({ role, ...(await fuzzAs(baseURL ?? "", role, tokens.get(role) ?? "", reportDir)) })));
  // What each run covered, from schemathesis's summary ("Tested: 124", "327 generated, …").
  const covered = runs.map((r) => `${r.role}: ${/Tested: (\d+)/.exec(r.output)?.[1] ?? "?"} operations, ${/(\d+) generated/.exec(r.output)?.[1] ?? "?"} requests`).join("; ");
  console.log(`[api-fuzz] ${version.output.trim()}: ${EXAMPLES} examples per operation, phases ${PHASES}, seed ${SEED}, in ${((Date.now() - started) / 1000).toFixed(0)} s — ${covered}`);
  for (const run of runs) await testInfo.attach(`schemathesis-${run.role}.txt`, { body: run.output, contentType: "text/plain" });
  const failed = runs.filter((r) => r.code !== 0).map((r) => `--- ${r.role} (exit ${r.code}) ---\n${r.output.slice(-20_000)}`);
  expect(failed, failed.join("\n")).toEqual([]);
});
