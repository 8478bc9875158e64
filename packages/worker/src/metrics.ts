/*
 * The worker's Prometheus metrics (prom-client), served at GET /metrics on the
 * health port (worker.ts). One registry per Worker, so two workers in one test
 * process never share a counter. The names are documented in the README
 * ("Metrics") and queried by docs/grafana/kappa-mesh.json; a test checks that
 * both agree with this registry.
 *
 * Scheme: `kappa_worker_<what>` with Prometheus' unit suffixes — counters end
 * in `_total`, durations are histograms in seconds (`_seconds`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Db } from "@kappa/catalog";
import type { Dependency, OutageTracker } from "./health/outages.ts";

/** What the Kafka connections report for each request they send (kafka/connections.ts). */
export interface KafkaRequestObserver {
  /** One request to the cluster: its API (Kafka's name, e.g. "Metadata"), how long it took, and whether it failed. */
  kafkaRequest(api: string, seconds: number, failed: boolean): void;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15];

export class WorkerMetrics implements KafkaRequestObserver {
  readonly registry = new Registry();
  readonly tasksCompleted: Counter<"kind">;
  readonly taskFailures: Counter<"kind" | "final">;
  readonly taskRetries: Counter<"kind">;
  readonly taskDuration: Histogram<"kind">;
  readonly reconcileDuration: Histogram<"result">;
  readonly observeDuration: Histogram<"result">;
  readonly driftRepaired: Counter<"kind">;
  readonly kafkaRequestDuration: Histogram<"api">;
  readonly kafkaRequestErrors: Counter<"api">;
  private db: Db | null = null;
  private outages: OutageTracker | null = null;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: "kappa_worker_" });
    this.tasksCompleted = new Counter({ name: "kappa_worker_tasks_completed_total", help: "Provisioning tasks finished (DONE), by task kind.", labelNames: ["kind"], registers });
    this.taskFailures = new Counter({
      name: "kappa_worker_task_failures_total",
      help: "Failed task attempts, by task kind; final=\"true\" when the task became FAILED (no more retries).",
      labelNames: ["kind", "final"],
      registers,
    });
    this.taskRetries = new Counter({ name: "kappa_worker_task_retries_total", help: "Failed task attempts scheduled for another try (backoff), by task kind.", labelNames: ["kind"], registers });
    this.taskDuration = new Histogram({ name: "kappa_worker_task_duration_seconds", help: "Time to run one task (or one batch, kind=\"batch\"), bookkeeping included.", labelNames: ["kind"], buckets: DURATION_BUCKETS, registers });
    this.reconcileDuration = new Histogram({ name: "kappa_worker_reconcile_duration_seconds", help: "Full reconcile runs, by result (ok, error).", labelNames: ["result"], buckets: DURATION_BUCKETS, registers });
    this.observeDuration = new Histogram({ name: "kappa_worker_observation_duration_seconds", help: "Observation cycles (offsets, lag, tiered storage), by result (ok, error).", labelNames: ["result"], buckets: DURATION_BUCKETS, registers });
    this.driftRepaired = new Counter({ name: "kappa_worker_drift_repaired_total", help: "Changes the full reconcile made to bring the cluster back to the catalog, by change kind.", labelNames: ["kind"], registers });
    this.kafkaRequestDuration = new Histogram({
      name: "kappa_worker_kafka_request_duration_seconds",
      help: "Requests the worker sent to Kafka, by API (Kafka's name), answered or not.",
      labelNames: ["api"],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.kafkaRequestErrors = new Counter({ name: "kappa_worker_kafka_request_errors_total", help: "Requests to Kafka that failed (connection error, timeout, error response thrown), by API.", labelNames: ["api"], registers });
    const bound = () => ({ db: this.db, outages: this.outages });
    new Gauge({
      name: "kappa_worker_task_queue_depth",
      help: "Provisioning tasks waiting to run (PENDING) and running (RUNNING), catalog-wide.",
      labelNames: ["status"],
      registers,
      async collect() {
        const { db } = bound();
        if (!db) return;
        // The database down must not fail the whole scrape: the gauge is left out, kappa_worker_dependency_up says why.
        const rows = await db.$queryRaw<{ status: string; n: bigint }[]>`
          SELECT status::text AS status, count(*) AS n FROM "ProvisioningTask" WHERE status IN ('PENDING', 'RUNNING') GROUP BY status`.catch(() => null);
        this.reset();
        if (!rows) return;
        this.set({ status: "PENDING" }, 0);
        this.set({ status: "RUNNING" }, 0);
        for (const r of rows) this.set({ status: r.status }, Number(r.n));
      },
    });
    new Gauge({
      name: "kappa_worker_task_queue_oldest_age_seconds",
      help: "Age of the oldest PENDING task whose runAfter has passed (0 when none waits), catalog-wide.",
      registers,
      async collect() {
        const { db } = bound();
        if (!db) return;
        const rows = await db.$queryRaw<{ age: number | null }[]>`
          SELECT EXTRACT(EPOCH FROM (now() - min("createdAt")))::float8 AS age FROM "ProvisioningTask" WHERE status = 'PENDING' AND "runAfter" <= now()`.catch(() => null);
        this.reset();
        if (rows) this.set(Math.max(0, rows[0]?.age ?? 0));
      },
    });
    const dependencies: Dependency[] = ["database", "kafka"];
    new Gauge({
      name: "kappa_worker_dependency_up",
      help: "1 while the dependency answers, 0 during an outage (what /healthz reports under dependencies).",
      labelNames: ["dependency"],
      registers,
      collect() {
        const { outages } = bound();
        if (!outages) return;
        for (const d of dependencies) this.set({ dependency: d }, outages.isDown(d) ? 0 : 1);
      },
    });
    const seen: Record<Dependency, number> = { database: 0, kafka: 0 };
    new Counter({
      name: "kappa_worker_outages_total",
      help: "Outages of a dependency: times it went from answering to unreachable.",
      labelNames: ["dependency"],
      registers,
      collect() {
        const { outages } = bound();
        if (!outages) return;
        for (const d of dependencies) {
          const n = outages.outages(d);
          if (n > seen[d]) this.inc({ dependency: d }, n - seen[d]);
          else this.inc({ dependency: d }, 0);
          seen[d] = n;
        }
      },
    });
  }

  /** The catalog (queue gauges) and the outage tracker the gauges read at scrape time. */
  bind(db: Db, outages: OutageTracker): void {
    this.db = db;
    this.outages = outages;
  }

  kafkaRequest(api: string, seconds: number, failed: boolean): void {
    this.kafkaRequestDuration.observe({ api }, seconds);
    if (failed) this.kafkaRequestErrors.inc({ api });
  }

  /** The text exposition format, for GET /metrics. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
