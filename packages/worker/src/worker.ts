/*
 * The long-running service: the task runner, the periodic full reconcile and
 * the observation loop on one Kafka connection set and one database pool,
 * plus a readiness signal (HTTP /healthz and/or a ready file).
 */
import { rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { recordWorkerPrincipals, type Db } from "@kappa/catalog";
import type { KafkaCluster } from "./kafka/cluster.ts";
import { errorMessage, type Logger } from "./log.ts";
import { Observer } from "./observe/observer.ts";
import { fullReconcile, type FullReconcileResult } from "./reconcile/full.ts";
import type { ReconcileContext } from "./reconcile/entities.ts";
import { platformPrincipals } from "./reconcile/principal-guard.ts";
import { TaskRunner, type RunnerOptions } from "./tasks/runner.ts";

export interface WorkerOptions extends RunnerOptions {
  reconcileIntervalMs: number;
  observeIntervalMs: number;
  historyHours: number;
  retiredTopics: "delete" | "keep";
  secretsKey: Buffer;
  /** 0 = no HTTP endpoint; otherwise the port of GET /healthz. */
  healthPort: number;
  readyFile?: string;
  /** How long shutdown waits for running tasks before releasing their leases. */
  shutdownGraceMs?: number;
  /** The worker's own Kafka principal (KAFKA_ADMIN_USER); null without SASL. */
  adminUser?: string | null;
  /** super.users from the configuration (KAFKA_SUPER_USERS); the cluster's own list is read too. */
  superUsers?: readonly string[];
}

export interface HealthReport {
  status: "ready" | "starting" | "degraded" | "stopping";
  workerId: string;
  tasks: { inFlight: number; completed: number; failed: number; lastPollError: string | null };
  reconcile: { lastRunAt: string | null; lastDriftCount: number | null; lastError: string | null };
  observe: { lastAt: string | null; lastDurationMs: number | null; unknown: string[]; lastError: string | null };
}

export class Worker {
  readonly runner: TaskRunner;
  readonly observer: Observer;
  readonly ctx: ReconcileContext;
  private timers: NodeJS.Timeout[] = [];
  private server: Server | null = null;
  private state: HealthReport["status"] = "starting";
  private lastReconcile: { at: Date; result: FullReconcileResult | null; error: string | null } | null = null;
  private reconciling: Promise<unknown> | null = null;
  private observing: Promise<unknown> | null = null;
  private lastObservedAt: Date | null = null;
  healthPort = 0;

  constructor(
    readonly db: Db,
    readonly cluster: KafkaCluster,
    readonly options: WorkerOptions,
    readonly log: Logger,
  ) {
    this.ctx = {
      db,
      cluster,
      secretsKey: options.secretsKey,
      log,
      retiredTopics: options.retiredTopics,
      platformPrincipals: platformPrincipals(options.adminUser ?? null, options.superUsers ?? []),
    };
    this.runner = new TaskRunner(this.ctx, options, log);
    this.observer = new Observer(db, cluster, { historyHours: options.historyHours }, log);
  }

  async start(): Promise<void> {
    await this.db.workerInstance.upsert({
      where: { workerId: this.options.workerId },
      create: { workerId: this.options.workerId, status: "starting" },
      update: { startedAt: new Date(), lastSeenAt: new Date(), status: "starting" },
    });
    // The portal holds no Kafka credentials: it learns which principals are
    // the platform's from the catalog, where the worker records them.
    await recordWorkerPrincipals(this.db, { adminUser: this.options.adminUser ?? null, superUsers: this.options.superUsers ?? [] });
    if (this.options.healthPort > 0 || this.options.healthPort === -1) await this.listen();
    this.runner.start();
    // First reconcile and observation right away, then on their intervals.
    this.reconcileNow();
    this.observeNow();
    this.timers.push(setInterval(() => this.reconcileNow(), this.options.reconcileIntervalMs));
    this.timers.push(setInterval(() => this.observeNow(), this.options.observeIntervalMs));
    this.timers.push(setInterval(() => void this.heartbeat(), 10_000));
    this.state = "ready";
    await this.heartbeat();
    if (this.options.readyFile) writeFileSync(this.options.readyFile, JSON.stringify({ workerId: this.options.workerId, healthPort: this.healthPort, pid: process.pid }) + "\n");
    this.log.info("worker ready", { workerId: this.options.workerId, healthPort: this.healthPort || undefined });
  }

  /**
   * Reads the cluster's super.users (best effort: a cluster that will not say
   * keeps the configured list) and records them before reconciling, so a super
   * user is reserved in the catalog and never altered here.
   */
  private async refreshSuperUsers(): Promise<void> {
    const fromCluster = await this.cluster.superUsers().catch((error: unknown) => {
      this.log.debug("could not read super.users from the cluster", { error: errorMessage(error) });
      return null;
    });
    if (!fromCluster) return;
    const all = [...new Set([...(this.options.superUsers ?? []), ...fromCluster])];
    this.ctx.platformPrincipals = platformPrincipals(this.options.adminUser ?? null, all);
    await recordWorkerPrincipals(this.db, { adminUser: this.options.adminUser ?? null, superUsers: all });
  }

  /** Starts a full reconcile unless one is running; resolves with its result. */
  reconcileNow(): Promise<unknown> {
    this.reconciling ??= this.refreshSuperUsers()
      .catch((error: unknown) => this.log.warn("could not record the cluster's super users", { error: errorMessage(error) }))
      .then(() => fullReconcile(this.ctx, this.options.workerId, { stopping: () => this.state === "stopping" }))
      .then((result) => {
        this.lastReconcile = { at: new Date(), result, error: result.errors[0]?.message ?? null };
        return result;
      })
      .catch((error: unknown) => {
        this.lastReconcile = { at: new Date(), result: null, error: errorMessage(error) };
        this.log.error("full reconcile failed", { error: errorMessage(error) });
      })
      .finally(() => {
        this.reconciling = null;
      });
    return this.reconciling;
  }

  observeNow(): Promise<unknown> {
    this.observing ??= this.observer
      .safeObserve()
      .then((summary) => {
        if (summary) this.lastObservedAt = new Date();
        return summary;
      })
      .finally(() => {
        this.observing = null;
      });
    return this.observing;
  }

  private async heartbeat(): Promise<void> {
    const status = this.health().status;
    await this.db.workerInstance
      .update({ where: { workerId: this.options.workerId }, data: { lastSeenAt: new Date(), status } })
      .catch((error: unknown) => this.log.warn("worker heartbeat failed", { error: errorMessage(error) }));
  }

  health(): HealthReport {
    const degraded = this.runner.lastPollError !== null || this.observer.lastError !== null || (this.lastReconcile?.error ?? null) !== null;
    return {
      status: this.state === "ready" && degraded ? "degraded" : this.state,
      workerId: this.options.workerId,
      tasks: { inFlight: this.runner.inFlight, completed: this.runner.completed, failed: this.runner.failed, lastPollError: this.runner.lastPollError },
      reconcile: {
        lastRunAt: this.lastReconcile?.at.toISOString() ?? null,
        lastDriftCount: this.lastReconcile?.result?.changes.length ?? null,
        lastError: this.lastReconcile?.error ?? null,
      },
      observe: {
        lastAt: this.lastObservedAt?.toISOString() ?? null,
        lastDurationMs: this.observer.lastSummary?.durationMs ?? null,
        unknown: this.observer.lastSummary?.unknown ?? [],
        lastError: this.observer.lastError,
      },
    };
  }

  private listen(): Promise<void> {
    const server = createServer((req, res) => {
      if (req.url !== "/healthz" && req.url !== "/readyz") {
        res.writeHead(404).end();
        return;
      }
      const report = this.health();
      // Degraded (Kafka unreachable) is still "up": the worker retries by itself.
      const code = report.status === "ready" || report.status === "degraded" ? 200 : 503;
      res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify(report));
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.healthPort === -1 ? 0 : this.options.healthPort, "127.0.0.1", () => {
        const address = server.address();
        this.healthPort = typeof address === "object" && address ? address.port : 0;
        resolve();
      });
    });
  }

  /** Graceful: no new leases, running tasks finish (or their leases are released), loops stop. */
  async stop(): Promise<void> {
    if (this.state === "stopping") return;
    this.state = "stopping";
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (this.options.readyFile) rmSync(this.options.readyFile, { force: true });
    const graceMs = this.options.shutdownGraceMs ?? 10_000;
    await this.runner.stop(graceMs);
    // A reconcile stops between entities; a request in flight is cut short
    // when the caller closes the cluster connections after stop().
    await Promise.race([Promise.allSettled([this.reconciling, this.observing]), new Promise((r) => setTimeout(r, graceMs))]);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await this.db.workerInstance
      .update({ where: { workerId: this.options.workerId }, data: { lastSeenAt: new Date(), status: "stopped" } })
      .catch((error: unknown) => this.log.warn("could not record the worker as stopped", { error: errorMessage(error) }));
    this.log.info("worker stopped", { workerId: this.options.workerId });
  }
}
