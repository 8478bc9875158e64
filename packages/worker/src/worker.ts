/*
 * The long-running service: the task runner, the periodic full reconcile and
 * the observation loop on one Kafka connection set and one database pool,
 * plus a readiness signal (HTTP /healthz and/or a ready file).
 */
import { rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { recordPrimaryCluster, recordUsageLedger, recordWorkerPrincipals, sweepRecertification, type Db, type PrimaryClusterFacts } from "@kappa/catalog";
import { DeadLetterWatch } from "./dead-letters/dead-letter-watch.ts";
import { DerivedJobs, type FlinkOptions } from "./derived/derived-jobs.ts";
import { EnvironmentReconciler } from "./environments/environment-reconciler.ts";
import { recordLiveBrokers } from "./health/cluster-brokers.ts";
import { failedDependency, OutageTracker, type DependencyHealth } from "./health/outages.ts";
import type { KafkaCluster } from "./kafka/cluster.ts";
import type { PlatformProducer } from "./kafka/producer.ts";
import { SunsetScheduler } from "./lifecycle/sunset-scheduler.ts";
import { errorMessage, type Logger } from "./log.ts";
import { WorkerMetrics } from "./metrics.ts";
import { NotificationDispatcher, type NotificationOptions } from "./notifications/dispatcher.ts";
import { ClusterScanner } from "./observe/cluster-scan.ts";
import { Observer } from "./observe/observer.ts";
import { QualitySampler } from "./quality/quality-sampler.ts";
import type { ReconcileContext } from "./reconcile/entities.ts";
import { fullReconcile, type FullReconcileResult } from "./reconcile/full.ts";
import { MessageBrowserPrincipal } from "./reconcile/platform-reader.ts";
import { platformPrincipals } from "./reconcile/principal-guard.ts";
import { AlertStep } from "./slo/alert-step.ts";
import { FreshnessWatch } from "./slo/freshness.ts";
import { TimeLagReader } from "./slo/time-lag-reader.ts";
import { StateMaterializer, type StateViewOptions } from "./state/materializer.ts";
import { TaskRunner, type RunnerOptions } from "./tasks/runner.ts";

export interface WorkerOptions extends RunnerOptions {
  reconcileIntervalMs: number;
  observeIntervalMs: number;
  /** Cluster scan interval (observe/cluster-scan.ts); absent = same as observeIntervalMs × 6. */
  clusterScanIntervalMs?: number;
  /** Recertification sweep interval (catalog sweepRecertification); absent = hourly. */
  recertificationIntervalMs?: number;
  /** How often the usage ledger (showback and chargeback) is recomputed from the observation history; default 5 minutes. */
  usageLedgerIntervalMs?: number;
  historyHours: number;
  retiredTopics: "delete" | "keep";
  secretsKey: Buffer;
  /** 0 = no HTTP endpoint; otherwise the port of GET /healthz and GET /metrics. */
  healthPort: number;
  /** Prometheus metrics (metrics.ts); absent: the worker makes its own (main.ts passes one the Kafka connections report to as well). */
  metrics?: WorkerMetrics;
  readyFile?: string;
  /** How long shutdown waits for running tasks before releasing their leases. */
  shutdownGraceMs?: number;
  /** The worker's own Kafka principal (KAFKA_ADMIN_USER); null without SASL. */
  adminUser?: string | null;
  /** super.users from the configuration (KAFKA_SUPER_USERS); the cluster's own list is read too. */
  superUsers?: readonly string[];
  /** Backoff while PostgreSQL or Kafka is unreachable: first delay and cap (capped exponential, jittered). */
  outageBackoffBaseMs?: number;
  outageBackoffMaxMs?: number;
  /** Webhook and e-mail delivery; absent: not sent by this instance. */
  notifications?: NotificationOptions;
  /** Sunset scheduler interval; absent: this instance retires nothing by itself. */
  sunsetCheckMs?: number;
  /** Latest-state views of compacted products; absent: this instance keeps none. */
  stateView?: Omit<StateViewOptions, "workerId">;
  /** How often the message browser's principal (credentials, READ/DESCRIBE on product topics) is reconciled; absent: not by this instance. */
  messageBrowserReconcileMs?: number;
  /** SLOs: measured time lag, product freshness and alert rules after each observation cycle; absent: not by this instance. */
  slo?: SloOptions;
  /**
   * Environments: this worker's cluster recorded as the primary environment,
   * and every cluster registered in the catalog reconciled on this interval;
   * absent: neither (single-cluster behaviour exactly as before).
   */
  environments?: { intervalMs: number; primary: PrimaryClusterFacts | null };
  /** Derived products: deployed to and observed on this Flink cluster each observation cycle; absent: not by this instance. */
  flink?: FlinkOptions;
  /** The platform's producer (redrive of dead letters); absent: redrive tasks fail saying so. The caller closes it. */
  producer?: PlatformProducer;
}

export interface SloOptions {
  /** A value must stay above its objective this long before the alert fires. */
  fireAfterMs: number;
  /** … and at or below objective × clearRatio this long before it resolves. */
  resolveAfterMs: number;
  clearRatio: number;
  /** How often product freshness (ListOffsets MAX_TIMESTAMP on every partition) is measured. */
  freshnessEveryMs: number;
}

export interface HealthReport {
  status: "ready" | "starting" | "degraded" | "stopping";
  /** Why it is degraded, e.g. "Kafka unreachable since …: <error>"; empty when ready. */
  reasons: string[];
  /** Which dependency is down right now, since when, and when the next try is. */
  dependencies: { database: DependencyHealth; kafka: DependencyHealth };
  workerId: string;
  tasks: { inFlight: number; completed: number; failed: number; lastPollError: string | null };
  reconcile: { lastRunAt: string | null; lastDriftCount: number | null; lastDurationMs: number | null; lastTimingMs: Record<string, number> | null; lastError: string | null };
  observe: { lastAt: string | null; lastDurationMs: number | null; unknown: string[]; lastError: string | null; stepErrors: Record<string, string> };
}

export class Worker {
  readonly runner: TaskRunner;
  readonly observer: Observer;
  readonly scanner: ClusterScanner;
  private scanning: Promise<unknown> | null = null;
  readonly ctx: ReconcileContext;
  readonly outages: OutageTracker;
  readonly notifications: NotificationDispatcher | null;
  readonly sunset: SunsetScheduler | null;
  readonly stateViews: StateMaterializer | null;
  readonly messageBrowser: MessageBrowserPrincipal | null;
  readonly environments: EnvironmentReconciler | null;
  readonly metrics: WorkerMetrics;
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
      ...(options.producer ? { producer: options.producer } : {}),
    };
    this.outages = new OutageTracker(options.outageBackoffBaseMs ?? 500, options.outageBackoffMaxMs ?? 30_000);
    this.metrics = options.metrics ?? new WorkerMetrics();
    this.metrics.bind(db, this.outages);
    this.runner = new TaskRunner(this.ctx, options, log, this.outages, this.metrics);
    this.observer = new Observer(db, cluster, { historyHours: options.historyHours }, log);
    this.scanner = new ClusterScanner(db, cluster, log);
    // Dead-letter topics (issue 29) before the alerts, whose DLQ_GROWTH rule reads these samples.
    this.observer.use(new DeadLetterWatch());
    this.observer.use(new QualitySampler());
    if (options.slo) {
      // Order matters: alert rules read the time lag and freshness the first two steps wrote.
      this.observer.use(new TimeLagReader());
      this.observer.use(new FreshnessWatch(options.slo.freshnessEveryMs));
      this.observer.use(new AlertStep({ fireAfterMs: options.slo.fireAfterMs, resolveAfterMs: options.slo.resolveAfterMs, clearRatio: options.slo.clearRatio }));
    }
    if (options.flink) this.observer.use(new DerivedJobs(this.ctx, options.flink));
    this.notifications = options.notifications ? new NotificationDispatcher(db, options.notifications, log) : null;
    this.sunset = options.sunsetCheckMs ? new SunsetScheduler(db, options.sunsetCheckMs, log) : null;
    this.messageBrowser = options.messageBrowserReconcileMs ? new MessageBrowserPrincipal(db, cluster, options.secretsKey, options.messageBrowserReconcileMs, log) : null;
    this.environments = options.environments ? new EnvironmentReconciler(db, { intervalMs: options.environments.intervalMs, secretsKey: options.secretsKey, clientId: `kappa-worker-${options.workerId}`, retiredTopics: options.retiredTopics }, log) : null;
    this.stateViews = options.stateView ? new StateMaterializer(db, cluster, { ...options.stateView, workerId: options.workerId }, log) : null;
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
    const primary = this.options.environments?.primary;
    if (primary) {
      // Best effort: two workers starting together may race on the row; the next start records it.
      const recorded = await recordPrimaryCluster(this.db, primary).catch((error: unknown) => ({ recorded: false, reason: errorMessage(error) }));
      if (!recorded.recorded) this.log.error("could not record this worker's cluster as an environment", { environment: primary.environment, reason: recorded.reason });
    }
    if (this.options.healthPort > 0 || this.options.healthPort === -1) await this.listen();
    this.runner.start();
    // First reconcile and observation right away, then on their intervals.
    // Each records and logs its own failure (see below), so nothing awaits them here.
    void this.reconcileNow();
    void this.observeNow();
    this.timers.push(setInterval(() => void this.reconcileNow(), this.options.reconcileIntervalMs));
    this.timers.push(setInterval(() => void this.observeNow(), this.options.observeIntervalMs));
    void this.scanNow();
    this.timers.push(setInterval(() => void this.scanNow(), this.options.clusterScanIntervalMs ?? this.options.observeIntervalMs * 6));
    // Several workers may sweep: each subscription is decided under its row lock, and a revoked one is skipped.
    this.timers.push(
      setInterval(() => {
        void sweepRecertification(this.db)
          .then((r) => {
            if (r.notified + r.revokedExpired + r.revokedOverdue > 0) this.log.info("recertification sweep", { ...r });
          })
          .catch((error: unknown) => this.log.warn("recertification sweep failed", { error: errorMessage(error) }));
      }, this.options.recertificationIntervalMs ?? 3_600_000),
    );
    // The usage ledger: today's (and yesterday's) rows recomputed from the minute history; an upsert, so several workers agree.
    this.timers.push(
      setInterval(() => {
        void recordUsageLedger(this.db, { now: Date.now(), historyHours: this.options.historyHours })
          .then((days) => {
            const written = days.reduce((n, d) => n + d.written, 0);
            if (written > 0) this.log.debug("usage ledger", { days: days.map((d) => ({ ...d })) });
          })
          .catch((error: unknown) => this.log.warn("usage ledger failed", { error: errorMessage(error) }));
      }, this.options.usageLedgerIntervalMs ?? 300_000),
    );
    this.timers.push(setInterval(() => void this.heartbeat(), 10_000));
    this.notifications?.start();
    this.sunset?.start();
    this.stateViews?.start();
    this.messageBrowser?.start();
    this.environments?.start();
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

  /**
   * What this worker's cluster can do, recorded on its environment's row
   * (`Cluster.tieredStorage`) so the catalog refuses a tiered product the
   * cluster would refuse, before anyone submits it. Unknown (null) keeps the
   * row as it is.
   */
  private async refreshCapabilities(): Promise<void> {
    const environment = this.options.environments?.primary?.environment;
    if (!environment) return;
    const tieredStorage = await this.cluster.tieredStorageEnabled().catch((error: unknown) => {
      this.log.debug("could not read remote.log.storage.system.enable from the cluster", { error: errorMessage(error) });
      return null;
    });
    if (tieredStorage === null) return;
    await this.db.cluster.updateMany({ where: { environment, primary: true, OR: [{ tieredStorage: null }, { tieredStorage: !tieredStorage }] }, data: { tieredStorage } });
  }

  /**
   * Which of its cluster's brokers are up, recorded on its environment
   * (health/cluster-brokers.ts): a broker missing from the metadata opens an
   * outage the admins see and are told of, its return closes it.
   */
  private async refreshBrokers(): Promise<void> {
    const environment = this.options.environments?.primary?.environment;
    if (!environment) return;
    const cluster = await this.db.cluster.findFirst({ where: { environment, primary: true }, select: { id: true, environment: true } });
    if (!cluster) return;
    const changes = await recordLiveBrokers(this.db, cluster, await this.cluster.liveBrokers());
    for (const b of changes.down) this.log.warn("broker down", { environment, nodeId: b.nodeId, address: b.address });
    for (const b of changes.back) this.log.info("broker back", { environment, nodeId: b.nodeId, address: b.address, downForMs: b.downForMs });
  }

  /**
   * Which dependency a failed cycle tripped over. Prisma's own errors say so;
   * a raw driver error ("Connection terminated") does not, so the database is
   * asked directly: if it answers, the failure was Kafka's.
   */
  private async culprit(error: unknown): Promise<"database" | "kafka"> {
    if (failedDependency(error) === "database") return "database";
    try {
      await this.db.$queryRaw`SELECT 1`;
      return "kafka";
    } catch {
      return "database";
    }
  }

  /** True while a dependency the loops need is down and its backoff has not run out (the loop skips this turn). */
  private backingOff(): boolean {
    return (["database", "kafka"] as const).some((d) => this.outages.isDown(d) && this.outages.waitMs(d) > 0);
  }

  /** Starts a full reconcile unless one is running; resolves with its result. */
  reconcileNow(): Promise<unknown> {
    if (this.backingOff()) return this.reconciling ?? Promise.resolve(null);
    const started = performance.now();
    this.reconciling ??= this.refreshSuperUsers()
      .catch((error: unknown) => this.log.warn("could not record the cluster's super users", { error: errorMessage(error) }))
      .then(() => this.refreshCapabilities())
      .catch((error: unknown) => this.log.warn("could not record the cluster's capabilities", { error: errorMessage(error) }))
      .then(() => fullReconcile(this.ctx, this.options.workerId, { stopping: () => this.state === "stopping" }))
      .then((result) => {
        this.lastReconcile = { at: new Date(), result, error: result.errors[0]?.message ?? null };
        this.metrics.reconcileDuration.observe({ result: result.errors.length > 0 ? "error" : "ok" }, (performance.now() - started) / 1000);
        for (const change of result.changes) this.metrics.driftRepaired.inc({ kind: change.kind });
        // The run reached the database; Kafka's state comes from the observation
        // cycles (a reconcile section can fail for reasons other than an outage,
        // e.g. a cluster without an authorizer refusing DescribeAcls).
        this.outages.success("database");
        return result;
      })
      .catch(async (error: unknown) => {
        this.lastReconcile = { at: new Date(), result: null, error: errorMessage(error) };
        this.metrics.reconcileDuration.observe({ result: "error" }, (performance.now() - started) / 1000);
        this.outages.failure(await this.culprit(error), error);
        this.log.error("full reconcile failed", { error: errorMessage(error) });
      })
      .finally(() => {
        this.reconciling = null;
      });
    return this.reconciling;
  }

  /** Starts a cluster scan unless one is running (topic browser, observed lineage). */
  scanNow(): Promise<unknown> {
    this.scanning ??= this.scanner.safeScan().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  observeNow(): Promise<unknown> {
    if (this.backingOff()) return this.observing ?? Promise.resolve(null);
    const started = performance.now();
    this.observing ??= this.observer
      .safeObserve()
      .then(async (summary) => {
        this.metrics.observeDuration.observe({ result: summary ? "ok" : "error" }, (performance.now() - started) / 1000);
        if (summary) {
          this.lastObservedAt = new Date();
          this.outages.success("database");
          this.outages.success("kafka");
          await this.refreshBrokers().catch((error: unknown) => this.log.warn("could not record the cluster's brokers", { error: errorMessage(error) }));
        } else {
          const failure = this.observer.lastFailure ?? this.observer.lastError;
          this.outages.failure(await this.culprit(failure), failure);
        }
        return summary;
      })
      .finally(() => {
        this.observing = null;
      });
    return this.observing;
  }

  /** Records the health in WorkerInstance now (also every 10 s). */
  async heartbeat(): Promise<void> {
    const report = this.health();
    // "ready", or "degraded: <why>" — the admin's platform view shows it as is.
    const status = report.status === "degraded" && report.reasons.length > 0 ? `degraded: ${report.reasons.join("; ")}`.slice(0, 1000) : report.status;
    await this.db.workerInstance
      .update({ where: { workerId: this.options.workerId }, data: { lastSeenAt: new Date(), status } })
      .catch((error: unknown) => this.log.warn("worker heartbeat failed", { error: errorMessage(error) }));
  }

  health(): HealthReport {
    const reasons = this.outages.describe();
    if (reasons.length === 0) {
      if (this.runner.lastPollError) reasons.push(`polling for tasks failed: ${this.runner.lastPollError}`);
      if (this.observer.lastError) reasons.push(`observation failed: ${this.observer.lastError}`);
      if (this.lastReconcile?.error) reasons.push(`reconcile: ${this.lastReconcile.error}`);
    }
    const degraded = reasons.length > 0;
    return {
      status: this.state === "ready" && degraded ? "degraded" : this.state,
      reasons: this.state === "ready" ? reasons : [],
      dependencies: { database: this.outages.health("database"), kafka: this.outages.health("kafka") },
      workerId: this.options.workerId,
      tasks: { inFlight: this.runner.inFlight, completed: this.runner.completed, failed: this.runner.failed, lastPollError: this.runner.lastPollError },
      reconcile: {
        lastRunAt: this.lastReconcile?.at.toISOString() ?? null,
        lastDriftCount: this.lastReconcile?.result?.changes.length ?? null,
        lastDurationMs: this.lastReconcile?.result?.durationMs ?? null,
        lastTimingMs: this.lastReconcile?.result ? Object.fromEntries(Object.entries(this.lastReconcile.result.timing).map(([part, ms]) => [part, Math.round(ms)])) : null,
        lastError: this.lastReconcile?.error ?? null,
      },
      observe: {
        lastAt: this.lastObservedAt?.toISOString() ?? null,
        lastDurationMs: this.observer.lastSummary?.durationMs ?? null,
        unknown: this.observer.lastSummary?.unknown ?? [],
        lastError: this.observer.lastError,
        stepErrors: Object.fromEntries(this.observer.stepErrors),
      },
    };
  }

  private listen(): Promise<void> {
    const server = createServer((req, res) => {
      if (req.url === "/metrics") {
        // Prometheus' scrape; loopback only, like /healthz (the server binds 127.0.0.1).
        this.metrics.text().then(
          (text) => res.writeHead(200, { "content-type": this.metrics.contentType }).end(text),
          (error: unknown) => {
            this.log.warn("collecting metrics failed", { error: errorMessage(error) });
            res.writeHead(500, { "content-type": "text/plain" }).end("collecting metrics failed\n");
          },
        );
        return;
      }
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
    await Promise.all([this.notifications?.stop(), this.sunset?.stop(), this.stateViews?.stop(), this.messageBrowser?.stop(), this.environments?.stop()]);
    // A reconcile stops between entities; a request in flight is cut short
    // when the caller closes the cluster connections after stop().
    await Promise.race([Promise.allSettled([this.reconciling, this.observing, this.scanning]), new Promise((r) => setTimeout(r, graceMs))]);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await this.db.workerInstance
      .update({ where: { workerId: this.options.workerId }, data: { lastSeenAt: new Date(), status: "stopped" } })
      .catch((error: unknown) => this.log.warn("could not record the worker as stopped", { error: errorMessage(error) }));
    this.log.info("worker stopped", { workerId: this.options.workerId });
  }
}
