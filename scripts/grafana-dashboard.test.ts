/*
 * docs/grafana/kappa-mesh.json queries exactly the documented metric names:
 * every metric a panel queries is in a README's "Metrics" table and in the
 * registry of the service that exports it, and every documented name exists.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { portalMetrics } from "../apps/portal/src/server/metrics/registry.ts";
import { BrokerMetrics } from "../packages/broker/src/metrics.ts";
import { WorkerMetrics } from "../packages/worker/src/metrics.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const READMES = ["apps/portal/README.md", "packages/worker/README.md", "packages/broker/README.md"];

interface Panel {
  title: string;
  targets?: { expr: string }[];
}

/** Metric names in a PromQL expression, histogram series (_bucket/_sum/_count) folded into their metric. */
export function queriedMetrics(expr: string): string[] {
  return [...expr.matchAll(/\b((?:kappa|kafka)_[a-z0-9_]+)\b/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""));
}

function documented(): Set<string> {
  const names = new Set<string>();
  for (const file of READMES) for (const m of readFileSync(path.join(ROOT, file), "utf8").matchAll(/^\| `((?:kappa|kafka)_[a-z0-9_]+)` \|/gm)) names.add(m[1]!);
  return names;
}

async function registered(): Promise<Set<string>> {
  const registries = [new WorkerMetrics().registry, new BrokerMetrics().registry, portalMetrics().registry];
  const names = new Set<string>();
  for (const r of registries) for (const m of r.getMetricsAsArray()) names.add(m.name);
  return names;
}

describe("the platform's Grafana dashboard", () => {
  const dashboard = JSON.parse(readFileSync(path.join(ROOT, "docs/grafana/kappa-mesh.json"), "utf8")) as { panels: Panel[]; templating: { list: { type: string }[] } };

  it("queries only metrics that are documented and exported", async () => {
    const docs = documented();
    const exported = await registered();
    const queried = dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => queriedMetrics(t.expr).map((name) => ({ panel: p.title, name }))));
    expect(queried.length).toBeGreaterThan(20);
    expect(queried.filter((q) => !docs.has(q.name)), "queried but not in a README's Metrics table").toEqual([]);
    expect(queried.filter((q) => !exported.has(q.name)), "queried but no service exports it").toEqual([]);
    // Each service's part of the dashboard is there.
    for (const prefix of ["kappa_portal_", "kappa_worker_", "kafka_"]) expect(queried.some((q) => q.name.startsWith(prefix)), prefix).toBe(true);
  });

  it("documents exactly what the services export (process metrics aside)", async () => {
    const docs = documented();
    const exported = await registered();
    expect([...docs].filter((n) => !exported.has(n)), "documented but not exported").toEqual([]);
    expect([...exported].filter((n) => !docs.has(n)), "exported but not documented").toEqual([]);
  });

  it("reads its Prometheus data source from a variable, so it imports into any Grafana", () => {
    expect(dashboard.templating.list.some((v) => v.type === "datasource")).toBe(true);
  });

  it("folds histogram series into their metric", () => {
    expect(queriedMetrics('histogram_quantile(0.99, sum by (le) (rate(kafka_network_requestmetrics_totaltimems_bucket{request="Produce"}[5m])))')).toEqual(["kafka_network_requestmetrics_totaltimems"]);
  });
});
