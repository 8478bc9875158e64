import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * The architecture's one-way dependency rule, checked over the real import
 * graph: every workspace's package.json and every import in its sources.
 *
 *   apps/portal     → catalog (and kafka-protocol for pure codecs)
 *   packages/worker → catalog, kafka-protocol
 *   packages/broker → kafka-protocol
 *   packages/catalog, packages/kafka-protocol → none of ours
 *   packages/engines → none of ours (launchers of existing engines: Apache Kafka)
 *
 * One deliberate exception: integration tests and benchmarks of the worker
 * use the embedded broker as the real Kafka they talk to over TCP (a
 * devDependency, never imported by runtime code), and so do the test suites
 * that run against Apache Kafka through packages/engines (the worker's and
 * the broker's, whose oracle runs compare it with Kafka). The portal has no such
 * exception: its message-browser integration test runs the broker as a
 * separate program (`npm run broker`). The launcher in scripts/ wires
 * everything together and is not part of the rule.
 *
 * A short test over the import graph rather than a tool: the rule is five
 * lines, and a new workspace without an entry fails here until someone decides
 * where it sits.
 */

const ROOT = path.resolve(import.meta.dirname, "..");

interface Rule {
  /** Packages of ours the runtime code may import. */
  allowed: string[];
  /** Packages of ours that only tests and benchmarks may import (devDependencies). */
  testOnly?: string[];
}

const RULES: Record<string, Rule> = {
  "apps/portal": { allowed: ["@kappa/catalog", "@kappa/kafka-protocol"] },
  "packages/worker": { allowed: ["@kappa/catalog", "@kappa/kafka-protocol"], testOnly: ["@kappa/broker", "@kappa/engines"] },
  "packages/broker": { allowed: ["@kappa/kafka-protocol"], testOnly: ["@kappa/engines"] },
  // Launchers of the engines the product runs against (Apache Kafka); they know nothing of the mesh.
  "packages/engines": { allowed: [] },
  "packages/catalog": { allowed: [] },
  "packages/kafka-protocol": { allowed: [] },
  // The kappa CLI talks HTTP to the portal only.
  "packages/cli": { allowed: [] },
};

const SKIP_DIRS = new Set(["node_modules", ".next", "dist", ".turbo", "coverage", "test-results", "playwright-report"]);
const SOURCE = /\.(c|m)?(t|j)sx?$/;
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g;

function workspaces(): string[] {
  const root = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
  return root.workspaces.flatMap((pattern) => {
    const parent = pattern.replace(/\/\*$/, "");
    return readdirSync(path.join(ROOT, parent))
      .map((name) => `${parent}/${name}`)
      .filter((dir) => statSync(path.join(ROOT, dir)).isDirectory() && readdirSafe(path.join(ROOT, dir)).includes("package.json"));
  });
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) ? [] : sourceFiles(path.join(dir, entry.name));
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path.join(dir, entry.name)] : [];
  });
}

/** `@kappa/worker/src/x` → `@kappa/worker`; anything not ours → null. */
function ourPackage(specifier: string): string | null {
  const match = /^(@kappa\/[^/]+)/.exec(specifier);
  return match ? match[1]! : null;
}

function isTestOrBench(workspaceDir: string, file: string): boolean {
  const rel = path.relative(workspaceDir, file).split(path.sep);
  return rel[0] === "test" || rel[0] === "bench" || rel[0] === "e2e" || /\.(test|spec|integration\.test)\.tsx?$/.test(file);
}

interface Edge {
  from: string;
  file: string;
  to: string;
}

/** Every import of another workspace: by package name, or by a relative path that leaves the workspace. */
function importsOf(workspace: string, names: Map<string, string>): Edge[] {
  const dir = path.join(ROOT, workspace);
  return sourceFiles(dir).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    const edges: Edge[] = [];
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1]!;
      let to = ourPackage(specifier);
      if (!to && specifier.startsWith(".")) {
        const target = path.resolve(path.dirname(file), specifier);
        const owner = [...names.keys()].find((ws) => target.startsWith(path.join(ROOT, ws) + path.sep));
        if (owner && owner !== workspace) to = names.get(owner)!;
      }
      if (to) edges.push({ from: workspace, file: path.relative(ROOT, file), to });
    }
    return edges;
  });
}

describe("one-way package dependencies", () => {
  const all = workspaces();
  const names = new Map(all.map((ws) => [ws, (JSON.parse(readFileSync(path.join(ROOT, ws, "package.json"), "utf8")) as { name: string }).name]));

  it("knows every workspace (a new package must be placed in the rule first)", () => {
    expect(all.filter((ws) => !(ws in RULES))).toEqual([]);
  });

  it("declares only allowed packages of ours in package.json", () => {
    const bad = all.flatMap((ws) => {
      const rule = RULES[ws];
      if (!rule) return [];
      const pkg = JSON.parse(readFileSync(path.join(ROOT, ws, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
      const runtime = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies }).filter((d) => d.startsWith("@kappa/"));
      const dev = Object.keys(pkg.devDependencies ?? {}).filter((d) => d.startsWith("@kappa/"));
      return [
        ...runtime.filter((d) => !rule.allowed.includes(d)).map((d) => `${ws} depends on ${d}`),
        ...dev.filter((d) => !rule.allowed.includes(d) && !(rule.testOnly ?? []).includes(d)).map((d) => `${ws} has a devDependency on ${d}`),
      ];
    });
    expect(bad).toEqual([]);
  });

  it("imports only allowed packages of ours (runtime code never imports a test-only one)", () => {
    const bad = all.flatMap((ws) => {
      const rule = RULES[ws];
      if (!rule) return [];
      const dir = path.join(ROOT, ws);
      return importsOf(ws, names)
        .filter((e) => e.to !== names.get(ws))
        .filter((e) => !rule.allowed.includes(e.to) && !((rule.testOnly ?? []).includes(e.to) && isTestOrBench(dir, path.join(ROOT, e.file))))
        .map((e) => `${e.file} imports ${e.to}`);
    });
    expect(bad).toEqual([]);
  });

  it("catches a forbidden import (the check itself can fail)", () => {
    // The portal importing the worker, as it once did for credential reveal.
    const rule = RULES["apps/portal"]!;
    expect(rule.allowed.includes("@kappa/worker")).toBe(false);
    expect(ourPackage("@kappa/worker/src/actions.ts")).toBe("@kappa/worker");
    const sample = 'import { retryTask } from "@kappa/worker";\nconst x = await import("@kappa/broker");';
    expect([...sample.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(["@kappa/worker", "@kappa/broker"]);
  });
});
