import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APACHE_FLINK_VERSION, startFlink, type ApacheFlinkCluster } from "../src/index.ts";

/*
 * The launcher against the real thing: the pinned Apache Flink (PyPI's
 * distribution jars, Maven Central's SQL Gateway and Kafka connector) as a
 * session cluster, driven through the SQL Gateway's REST API as the worker does.
 */

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} → ${response.status}: ${text.slice(0, 2000)}`);
  return JSON.parse(text) as T;
}

interface ResultPage {
  resultType: "NOT_READY" | "PAYLOAD" | "EOS";
  jobID?: string;
  results: { columns: { name: string; logicalType: { type: string; nullable: boolean } }[]; data: { kind: string; fields: unknown[] }[] };
  nextResultUri?: string;
}

/** Runs one statement in a session and reads every page of its result. */
async function statement(gateway: string, session: string, sql: string): Promise<{ columns: ResultPage["results"]["columns"]; rows: unknown[][]; jobID?: string }> {
  const { operationHandle } = await call<{ operationHandle: string }>("POST", `${gateway}/v3/sessions/${session}/statements`, { statement: sql });
  let uri: string | undefined = `/v3/sessions/${session}/operations/${operationHandle}/result/0?rowFormat=JSON`;
  const rows: unknown[][] = [];
  let columns: ResultPage["results"]["columns"] = [];
  let jobID: string | undefined;
  const deadline = Date.now() + 180_000;
  while (uri) {
    if (Date.now() > deadline) throw new Error(`no end of result for ${sql}`);
    const page: ResultPage = await call<ResultPage>("GET", `${gateway}${uri}`);
    if (page.results?.columns?.length) columns = page.results.columns;
    rows.push(...(page.results?.data ?? []).map((r) => r.fields));
    jobID ??= page.jobID;
    if (page.resultType === "EOS") break;
    if (page.resultType === "NOT_READY" || (page.results?.data ?? []).length === 0) await new Promise((r) => setTimeout(r, 200));
    uri = page.nextResultUri;
  }
  return { columns, rows, jobID };
}

describe(`Apache Flink ${APACHE_FLINK_VERSION}: a session cluster and its SQL Gateway`, () => {
  let cluster: ApacheFlinkCluster;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-engines-flink-"));
    cluster = await startFlink({ dataDir, taskSlots: 2, log: (line) => console.log(`[apache-flink] ${line}`) });
  });

  afterAll(async () => {
    await cluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs a query the SQL Gateway submits to the session cluster as a job, and answers its rows and types", async () => {
    const info = await call<{ productName: string; version: string }>("GET", `${cluster.gatewayUrl}/v3/info`);
    expect(info).toEqual({ productName: "Apache Flink", version: APACHE_FLINK_VERSION });
    const { sessionHandle } = await call<{ sessionHandle: string }>("POST", `${cluster.gatewayUrl}/v3/sessions`, { sessionName: "engines-test", properties: { "execution.runtime-mode": "batch" } });
    try {
      const result = await statement(cluster.gatewayUrl, sessionHandle, "SELECT n, n * n AS square FROM (VALUES (2), (3), (7)) AS t(n)");
      expect(result.columns.map((c) => [c.name, c.logicalType.type])).toEqual([
        ["n", "INTEGER"],
        ["square", "INTEGER"],
      ]);
      expect(result.rows.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
        [2, 4],
        [3, 9],
        [7, 49],
      ]);
      // The query ran on the cluster: the JobManager lists its job as finished.
      expect(result.jobID).toMatch(/^[0-9a-f]{32}$/);
      const job = await call<{ state: string; name: string }>("GET", `${cluster.restUrl}/jobs/${result.jobID}`);
      expect(job.state).toBe("FINISHED");
    } finally {
      await call("DELETE", `${cluster.gatewayUrl}/v3/sessions/${sessionHandle}`);
    }
  });

  it("has the Kafka SQL connector on the classpath: a Kafka table plans (nothing connects to Kafka for EXPLAIN)", async () => {
    const { sessionHandle } = await call<{ sessionHandle: string }>("POST", `${cluster.gatewayUrl}/v3/sessions`, {});
    try {
      await statement(cluster.gatewayUrl, sessionHandle, "CREATE TEMPORARY TABLE `orders.order-events.v1` (orderId STRING, amount DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'kafka', 'topic' = 'orders.order-events.v1', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset')");
      const explained = await statement(cluster.gatewayUrl, sessionHandle, "EXPLAIN SELECT window_start, SUM(amount) AS revenue FROM TABLE(TUMBLE(TABLE `orders.order-events.v1`, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end");
      expect(String(explained.rows[0]?.[0])).toMatch(/TableSourceScan\(table=\[\[default_catalog, default_database, orders\.order-events\.v1/);
      expect(String(explained.rows[0]?.[0])).toMatch(/WindowAggregate/);
    } finally {
      await call("DELETE", `${cluster.gatewayUrl}/v3/sessions/${sessionHandle}`);
    }
  });

  it("stops every process it started", async () => {
    const pids = (["jobmanager", "taskmanager", "sql-gateway"] as const).map((c) => cluster.pid(c)!);
    expect(pids.every((p) => p > 0)).toBe(true);
    await cluster.stop();
    for (const pid of pids) expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")).toBe(false);
  });
});
