import { chmodSync, existsSync, mkdtempSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { configPath, loadConfig, normalizeUrl, saveConfig } from "./config.ts";
import { contractFiles } from "./files.ts";
import { main } from "./main.ts";
import { lineDiff, planExitCode, renderPlanItem, table } from "./render.ts";
import type { PlanItem } from "./types.ts";

const item = (over: Partial<PlanItem>): PlanItem => ({
  source: "contracts/x.yaml",
  contractId: "orders.x",
  action: "no-change",
  productId: "p1",
  topic: "orders.x.v1",
  targetTopic: null,
  status: "ACTIVE",
  changes: [],
  schema: { change: "none", mode: null, compatible: null, issues: [] },
  policy: { version: 3, results: [{ ruleId: "naming.slug", severity: "error", outcome: "pass", message: "ok" }], blocked: false },
  errors: [],
  notes: [],
  ...over,
});

describe("kappa output", () => {
  it("exit codes: 0 no change, 2 changes, 1 an error or a blocking policy", () => {
    expect(planExitCode([item({})])).toBe(0);
    expect(planExitCode([item({}), item({ action: "update" })])).toBe(2);
    expect(planExitCode([item({ action: "update" }), item({ action: "error" })])).toBe(1);
    expect(planExitCode([item({ action: "create", policy: { version: 1, results: [], blocked: true } })])).toBe(1);
  });

  it("other domains' files are skipped with the reason and do not count in the exit code", () => {
    const skipped = item({ action: "skipped", contractId: "payments.refunds", source: "examples/contracts/payments.refunds.odcs.yaml", productId: null, topic: null, status: null, skipped: 'Not yours to change: only owners of domain "payments" publish its products.' });
    expect(planExitCode([item({}), skipped])).toBe(0);
    expect(planExitCode([item({ action: "update" }), skipped])).toBe(2);
    const text = renderPlanItem(skipped);
    expect(text).toBe('- payments.refunds: skipped\n    file: examples/contracts/payments.refunds.odcs.yaml\n    skipped: Not yours to change: only owners of domain "payments" publish its products.');
  });

  it("renders field changes, the compatibility verdict and failing rules", () => {
    const text = renderPlanItem(
      item({
        action: "new-major-version",
        targetTopic: "orders.x.v2",
        changes: [{ field: "schema", from: "AVRO v1", to: "AVRO v2" }],
        schema: { change: "new-version", mode: "BACKWARD", compatible: false, issues: [{ path: "amount", rule: "READER_FIELD_MISSING_DEFAULT_VALUE", message: "field amount added without a default" }] },
        policy: { version: 3, results: [{ ruleId: "topic.tiered-storage", severity: "warn", outcome: "warn", message: "turn on tiered storage" }], blocked: false },
      }),
    );
    expect(text).toContain("+ orders.x: new major version (orders.x.v2)");
    expect(text).toContain('~ schema: "AVRO v1" -> "AVRO v2"');
    expect(text).toContain("schema: INCOMPATIBLE under BACKWARD");
    expect(text).toContain("- amount: field amount added without a default [READER_FIELD_MISSING_DEFAULT_VALUE]");
    expect(text).toContain("WARN topic.tiered-storage: turn on tiered storage");
    expect(table(["A", "BB"], [["xxx", 1], [null, "y"]])).toBe("A    BB\nxxx  1\n-    y");
  });
});

describe("kappa configuration and files", () => {
  it("login stores the config with mode 0600; env vars override it", () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "kappa-cli-"));
    const env = { XDG_CONFIG_HOME: home };
    const file = saveConfig({ url: "http://localhost:3000", token: "kappa_t" }, env);
    expect(file).toBe(configPath(env));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(loadConfig(env)).toEqual({ url: "http://localhost:3000", token: "kappa_t" });
    expect(loadConfig({ ...env, KAPPA_URL: "https://mesh.example/", KAPPA_TOKEN: "kappa_e" })).toEqual({ url: "https://mesh.example", token: "kappa_e" });
    expect(() => loadConfig({ XDG_CONFIG_HOME: path.join(home, "none") })).toThrow(/Not logged in/);
    expect(loadConfig({ ...env, KAPPA_URL: "", KAPPA_TOKEN: "" })).toEqual({ url: "http://localhost:3000", token: "kappa_t" });
    expect(() => normalizeUrl("ftp://x")).toThrow(/http/);
  });

  it("-f takes a file or every contract file under a folder, sorted", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-files-"));
    mkdirSync(path.join(dir, "b"));
    writeFileSync(path.join(dir, "b", "z.yaml"), "x");
    writeFileSync(path.join(dir, "a.json"), "x");
    writeFileSync(path.join(dir, "notes.md"), "x");
    expect(contractFiles(dir).map((f) => path.relative(dir, f))).toEqual(["a.json", path.join("b", "z.yaml")]);
    expect(() => contractFiles(path.join(dir, "missing"))).toThrow(/no such file/);
  });

  it("every command has --help, and errors exit 1 with a message", async () => {
    for (const args of [["--help"], ["plan", "--help"], ["apply", "--help"], ["get", "products", "--help"], ["get", "product", "--help"], ["get", "subscriptions", "--help"], ["subscribe", "--help"], ["credentials", "--help"], ["contract", "export", "--help"], ["login", "--help"]]) {
      const out: string[] = [];
      const code = await main(["node", "kappa", ...args], { out: (t) => out.push(t), err: (t) => out.push(t), env: {}, sleep: async () => {} });
      expect({ args, code }).toEqual({ args, code: 0 });
      expect(out.join("\n")).toContain("Usage: kappa");
    }
    const err: string[] = [];
    const code = await main(["node", "kappa", "get", "products"], { out: () => {}, err: (t) => err.push(t), env: { XDG_CONFIG_HOME: "/nonexistent-kappa" }, sleep: async () => {} });
    expect(code).toBe(1);
    expect(err.join("")).toMatch(/Not logged in/);
  });
});

/* Issue 30, finding 12: the token was in argv, an existing 0777 folder stayed 0777, a symlinked config file was followed. */
describe("kappa login keeps the token out of argv and off other users' reach", () => {
  let server: Server;
  let url = "";
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ email: "owner@orders.example" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = async (args: string[], env: Record<string, string>, stdin: string, isTTY = false) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(["node", "kappa", "login", "--url", url, ...args], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      env,
      sleep: async () => {},
      stdin: { isTTY, readAll: async () => stdin, prompt: async () => stdin },
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  it("refuses a token given on the command line, saving and sending nothing", async () => {
    const env = { XDG_CONFIG_HOME: mkdtempSync(path.join(os.tmpdir(), "kappa-cli-")) };
    seen.length = 0;
    const result = await run(["--token", "kappa_secret_in_argv"], env, "");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/does not take the token on the command line.*--with-token/s);
    expect(existsSync(configPath(env))).toBe(false);
    expect(seen).toEqual([]);
  });

  it("reads the token from standard input (--with-token, --token -, or piped) or a prompt", async () => {
    for (const [args, isTTY] of [[["--with-token"], false], [["--token", "-"], false], [[], false], [[], true]] as const) {
      const env = { XDG_CONFIG_HOME: mkdtempSync(path.join(os.tmpdir(), "kappa-cli-")) };
      seen.length = 0;
      const result = await run([...args], env, "kappa_from_stdin\n", isTTY);
      expect({ args, code: result.code, err: result.err }).toEqual({ args, code: 0, err: "" });
      expect(seen).toEqual(["Bearer kappa_from_stdin"]);
      expect(loadConfig(env).token).toBe("kappa_from_stdin");
    }
    const empty = await run(["--with-token"], { XDG_CONFIG_HOME: mkdtempSync(path.join(os.tmpdir(), "kappa-cli-")) }, "  \n");
    expect(empty.code).toBe(1);
    expect(empty.err).toMatch(/No token on standard input/);
  });

  it("tightens an existing 0777 config folder to 0700", () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "kappa-cli-"));
    mkdirSync(path.join(home, "kappa"));
    chmodSync(path.join(home, "kappa"), 0o777);
    const file = saveConfig({ url: "http://localhost:3000", token: "kappa_t" }, { XDG_CONFIG_HOME: home });
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses a config file that is a symbolic link, on save and on load, leaving its target alone", () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "kappa-cli-"));
    const env = { XDG_CONFIG_HOME: home };
    mkdirSync(path.join(home, "kappa"), { mode: 0o700 });
    const elsewhere = path.join(home, "somewhere-else.json");
    writeFileSync(elsewhere, JSON.stringify({ url: "http://attacker.example", token: "kappa_planted" }));
    symlinkSync(elsewhere, configPath(env));
    expect(() => saveConfig({ url: "http://localhost:3000", token: "kappa_t" }, env)).toThrow(/symbolic link/);
    expect(readFileSync(elsewhere, "utf8")).toContain("kappa_planted");
    expect(() => loadConfig(env)).toThrow(/symbolic link/);
  });
});

/** A portal that answers plan with these items and records every request the CLI sends. */
function fakePortal(planItems: PlanItem[]) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: { method: string; body?: string }) => {
    const path = new URL(url).pathname;
    const body: unknown = init.body ? JSON.parse(init.body) : undefined;
    calls.push({ method: init.method, path, body });
    const items = path === "/api/v1/contracts" ? planItems.map((i) => ({ ...i, applied: true, status: "IN_REVIEW" })) : planItems;
    return new Response(JSON.stringify({ items }), { status: 200, headers: { "content-type": "application/json" } });
  });
  return calls;
}

async function runKappa(args: string[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-run-"));
  writeFileSync(path.join(dir, "orders.yaml"), "id: orders.x\n");
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["node", "kappa", ...args.map((a) => (a === "DIR" ? dir : a))], { out: (t) => out.push(t), err: (t) => err.push(t), env: { KAPPA_URL: "http://portal.test", KAPPA_TOKEN: "kappa_t" }, sleep: async () => {} });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("kappa apply and new major versions", () => {
  afterEach(() => vi.unstubAllGlobals());
  const major = item({ action: "new-major-version", targetTopic: "orders.x.v2", changes: [{ field: "schema", from: "AVRO v1", to: "AVRO v2" }], schema: { change: "new-version", mode: "BACKWARD", compatible: false, issues: [] } });

  it("without --new-major-version nothing is sent to apply, and the reason names the flag", async () => {
    const calls = fakePortal([major]);
    const result = await runKappa(["apply", "-f", "DIR"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("Nothing was applied: orders.x needs a new major version (orders.x.v2)");
    expect(result.err).toContain("--new-major-version");
    expect(calls.map((c) => c.path)).toEqual(["/api/v1/contracts/plan"]);
  });

  it("with --new-major-version (and --sunset) apply asks the portal to create it", async () => {
    const calls = fakePortal([major]);
    const result = await runKappa(["apply", "-f", "DIR", "--new-major-version", "--sunset", "2030-01-31"]);
    expect(result.code).toBe(0);
    expect(calls.map((c) => c.path)).toEqual(["/api/v1/contracts/plan", "/api/v1/contracts"]);
    expect(calls[1]?.body).toMatchObject({ allowNewMajorVersion: true, sunsetAt: "2030-01-31T00:00:00Z" });
    expect((await runKappa(["apply", "-f", "DIR", "--sunset", "2030-01-31"])).err).toContain("add --new-major-version");
    expect((await runKappa(["apply", "-f", "DIR", "--new-major-version", "--sunset", "soon"])).err).toContain("--sunset is a date");
  });
});

describe("kappa plan over a folder with other domains' files", () => {
  afterEach(() => vi.unstubAllGlobals());
  it("reports each skipped file and exits by the caller's own products", async () => {
    const skipped = item({ action: "skipped", contractId: "payments.refunds", productId: null, topic: null, status: null, skipped: "Not yours to change: only owners of domain \"payments\" publish its products." });
    fakePortal([item({}), skipped]);
    const same = await runKappa(["plan", "-f", "DIR"]);
    expect(same.code).toBe(0);
    expect(same.out).toContain("- payments.refunds: skipped");
    expect(same.out).toContain("Plan: 1 no change, 1 skipped.");
    fakePortal([item({ action: "update", changes: [{ field: "tags", from: ["a"], to: ["b"] }] }), skipped]);
    expect((await runKappa(["plan", "-f", "DIR"])).code).toBe(2);
    const calls = fakePortal([item({}), skipped]);
    const applied = await runKappa(["apply", "-f", "DIR"]);
    expect(applied.code).toBe(0);
    expect(calls.map((c) => c.path)).toEqual(["/api/v1/contracts/plan"]);
  });
});

describe("kappa plan and apply with field-level encryption (encryptPii)", () => {
  afterEach(() => vi.unstubAllGlobals());
  const encrypt = item({
    action: "update",
    changes: [{ field: "encryptPii", from: false, to: true }],
    notes: ["Field-level encryption of the PII fields (turned on) changes through review: applying requests the change (governance approves it, four eyes) with the contract as its reason."],
  });

  it("plan shows the switch as a change with the review note; apply sends it without --new-major-version", async () => {
    fakePortal([encrypt]);
    const planned = await runKappa(["plan", "-f", "DIR"]);
    expect(planned.code).toBe(2);
    expect(planned.out).toContain("    ~ encryptPii: false -> true");
    expect(planned.out).toContain("Field-level encryption of the PII fields (turned on) changes through review");
    const calls = fakePortal([encrypt]);
    const applied = await runKappa(["apply", "-f", "DIR"]);
    expect(applied.code).toBe(0);
    expect(calls.map((c) => c.path)).toEqual(["/api/v1/contracts/plan", "/api/v1/contracts"]);
  });
});

describe("kappa plan and apply with a derived product's statement", () => {
  afterEach(() => vi.unstubAllGlobals());
  const before = "SELECT status, COUNT(*) AS changes\nFROM TABLE(TUMBLE(TABLE `orders.order-status.v1`, DESCRIPTOR(updatedAt), INTERVAL '1' MINUTE))\nGROUP BY window_start, window_end, status";
  const after = before.replace("'1' MINUTE", "'5' MINUTE");
  const refused = item({
    action: "error",
    changes: [{ field: "derivedStatement", from: before, to: after }],
    errors: ["schema[0].customProperties.derivedStatement: the statement of orders.x.v1 differs from the catalog's, and changing a derived product's statement is not supported yet (not in the portal either)."],
  });

  it("a changed statement is shown as a line diff under the error, and apply sends nothing", async () => {
    fakePortal([refused]);
    const planned = await runKappa(["plan", "-f", "DIR"]);
    expect(planned.code).toBe(1);
    expect(planned.out).toContain(
      [
        "    error: schema[0].customProperties.derivedStatement: the statement of orders.x.v1 differs from the catalog's, and changing a derived product's statement is not supported yet (not in the portal either).",
        "    ~ derivedStatement:",
        "          SELECT status, COUNT(*) AS changes",
        "        - FROM TABLE(TUMBLE(TABLE `orders.order-status.v1`, DESCRIPTOR(updatedAt), INTERVAL '1' MINUTE))",
        "        + FROM TABLE(TUMBLE(TABLE `orders.order-status.v1`, DESCRIPTOR(updatedAt), INTERVAL '5' MINUTE))",
        "          GROUP BY window_start, window_end, status",
      ].join("\n"),
    );
    const calls = fakePortal([refused]);
    const applied = await runKappa(["apply", "-f", "DIR"]);
    expect(applied.code).toBe(1);
    expect(applied.err).toBe("Nothing was applied: fix the errors above.");
    expect(calls.map((c) => c.path)).toEqual(["/api/v1/contracts/plan"]);
  });

  it("a statement added or removed reads as whole lines added or removed; a one-line text stays on one line", () => {
    expect(renderPlanItem(item({ action: "error", changes: [{ field: "derivedStatement", from: before, to: null }] }))).toContain(
      "    ~ derivedStatement:\n        - SELECT status, COUNT(*) AS changes\n        - FROM TABLE(TUMBLE(TABLE `orders.order-status.v1`, DESCRIPTOR(updatedAt), INTERVAL '1' MINUTE))\n        - GROUP BY window_start, window_end, status",
    );
    expect(renderPlanItem(item({ action: "error", changes: [{ field: "derivedStatement", from: null, to: "SELECT 1" }] }))).toContain("    ~ derivedStatement:\n        + SELECT 1");
    expect(renderPlanItem(item({ action: "update", changes: [{ field: "description", from: "a", to: "b" }] }))).toContain('    ~ description: "a" -> "b"');
    expect(lineDiff(["a", "b", "c"], ["a", "c", "d"])).toEqual(["  a", "- b", "  c", "+ d"]);
    expect(lineDiff([], [])).toEqual([]);
  });
});

