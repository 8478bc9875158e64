/*
 * Drains the ProvisioningTask outbox. Rules it keeps:
 * - A task is leased with SELECT … FOR UPDATE SKIP LOCKED, so any number of
 *   workers can poll one database without handing a task to two of them; the
 *   lease (leaseUntil/leasedBy) is renewed while the task runs, and a task
 *   whose lease expired (its worker died) is leased again by anyone.
 * - Steps of one entity run in order: a step is eligible only when every
 *   earlier step of that entity is DONE.
 * - Failures retry with capped exponential backoff and jitter; after
 *   maxAttempts the task is FAILED with its last error, until retryTask.
 * - Every handler is an idempotent reconcile (see reconcile/entities.ts), so a
 *   task that runs twice — lease lost, crash after the Kafka call but before
 *   the DONE write — converges to the same state.
 * Time comes from PostgreSQL (UTC), never the worker's clock, so workers with
 * skewed clocks agree on who owns a lease.
 */
import { Prisma } from "@prisma/client";
import type { Db } from "@kappa/catalog";
import { isSecurityDisabled, isTieredStorageDisabled, SECURITY_DISABLED_HINT, TIERED_STORAGE_DISABLED_HINT } from "../errors.ts";
import type { OutageTracker } from "../health/outages.ts";
import { jsonSafe } from "../json.ts";
import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import type { WorkerMetrics } from "../metrics.ts";
import { ensureCredentialsMany, reconcilePrincipalsAcls, reconcileProductTopics } from "../reconcile/batch.ts";
import { backoffDelayMs } from "../reconcile/diff.ts";
import { auditAsWorker, WORKER_ACTOR, type Change, type ReconcileContext } from "../reconcile/entities.ts";
import { reconcileGrantsSkippingBusy } from "../reconcile/grants.ts";
import { reconcileQuotasOf } from "../reconcile/quotas.ts";
import { NonRetryableError, planBatch, runTaskHandler } from "./handlers.ts";


export interface LeasedTask {
  id: string;
  kind: string;
  payload: unknown;
  entityType: string;
  entityId: string;
  step: number;
  attempts: number;
  /** The portal request (x-request-id) that queued the task, when one did: every log line about the task carries it. */
  requestId?: string | null;
}

/** `requestId` for a task's log lines, when a request queued it. */
function requestOf(task: LeasedTask): { requestId?: string } {
  return task.requestId ? { requestId: task.requestId } : {};
}

export interface RunnerOptions {
  workerId: string;
  /** Batches in flight at once. */
  concurrency: number;
  /** Tasks leased and run together (shared describes and Kafka requests); 1 disables batching. */
  batchSize?: number;
  pollMs: number;
  leaseMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
const msInterval = (ms: number) => Prisma.sql`make_interval(secs => ${ms / 1000})`;
/** Task `c` may run: every earlier step of its entity is DONE (steps of one entity run in order). */
const EARLIER_STEPS_DONE = Prisma.sql`NOT EXISTS (
  SELECT 1 FROM "ProvisioningTask" AS e
   WHERE e."entityType" = c."entityType" AND e."entityId" = c."entityId"
     AND e.step < c.step AND e.status <> 'DONE')`;

/**
 * Leases up to `limit` eligible tasks for `workerId`: first tasks whose lease
 * expired (their worker died; rare, few), then pending ones in (runAfter,
 * createdAt, step) order. Two statements rather than one with an OR: each
 * walks the (status, runAfter, createdAt, step) index and stops after `limit`
 * rows, where the OR made PostgreSQL sort every pending task on each lease
 * (80,000 queued tasks: 300 ms per lease, most of a large convergence).
 */
export async function leaseTasks(db: Db, workerId: string, limit: number, leaseMs: number, running: readonly string[] = []): Promise<LeasedTask[]> {
  if (limit <= 0) return [];
  // Never one this worker is still running itself (a renewal late under load): that would run it twice here.
  const expired = await leaseWhere(db, workerId, limit, leaseMs, Prisma.sql`c.status = 'RUNNING' AND c."leaseUntil" < ${NOW} AND NOT (c.id = ANY(${[...running]}::text[]))`);
  if (expired.length >= limit) return expired;
  const pending = await leaseWhere(db, workerId, limit - expired.length, leaseMs, Prisma.sql`c.status = 'PENDING' AND c."runAfter" <= ${NOW}`);
  return [...expired, ...pending];
}

function leaseWhere(db: Db, workerId: string, limit: number, leaseMs: number, condition: Prisma.Sql): Promise<LeasedTask[]> {
  return db.$queryRaw<LeasedTask[]>`
    UPDATE "ProvisioningTask" AS t
       SET status = 'RUNNING', "leaseUntil" = ${NOW} + ${msInterval(leaseMs)}, "leasedBy" = ${workerId},
           attempts = t.attempts + 1, "updatedAt" = ${NOW}
     WHERE t.id IN (
       SELECT c.id FROM "ProvisioningTask" AS c
        WHERE ${condition}
          AND ${EARLIER_STEPS_DONE}
        ORDER BY c."runAfter", c."createdAt", c.step
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING t.id, t.kind, t.payload, t."entityType", t."entityId", t.step, t.attempts, t."requestId"`;
}

/**
 * Milliseconds until some outstanding task can be leased — a PENDING one in
 * backoff, or a RUNNING one whose lease may expire — counting only tasks whose
 * earlier steps are all DONE (a later step waits on its predecessor; one
 * behind a FAILED step waits for retryTask). Null when none is outstanding.
 */
export async function msUntilNextRunnable(db: Db): Promise<number | null> {
  const [row] = await db.$queryRaw<{ ms: number | null }[]>`
    SELECT (EXTRACT(EPOCH FROM MIN(CASE WHEN c.status = 'PENDING' THEN c."runAfter" ELSE c."leaseUntil" END) - ${NOW}) * 1000)::float8 AS ms
      FROM "ProvisioningTask" AS c
     WHERE c.status IN ('PENDING', 'RUNNING')
       AND ${EARLIER_STEPS_DONE}`;
  // MIN over no rows is NULL (nothing outstanding); a time already passed is 0.
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}

/** Extends the leases of a batch; the number still ours. */
export async function renewLeases(db: Db, ids: string[], workerId: string, leaseMs: number): Promise<number> {
  return db.$executeRaw`
    UPDATE "ProvisioningTask" SET "leaseUntil" = ${NOW} + ${msInterval(leaseMs)}, "updatedAt" = ${NOW}
     WHERE id = ANY(${ids}) AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
}

/** Extends our lease; false when it is no longer ours (expired and taken over). */
export async function renewLease(db: Db, task: LeasedTask, workerId: string, leaseMs: number): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE "ProvisioningTask" SET "leaseUntil" = ${NOW} + ${msInterval(leaseMs)}, "updatedAt" = ${NOW}
     WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
  return n === 1;
}

/** Gives many leases back without counting the attempts (a batch's tasks whose accounts another batch holds). */
export async function releaseLeases(db: Db, ids: string[], workerId: string): Promise<void> {
  await db.$executeRaw`
    UPDATE "ProvisioningTask" SET status = 'PENDING', "leaseUntil" = NULL, "leasedBy" = NULL,
           attempts = GREATEST(attempts - 1, 0), "runAfter" = ${NOW}, "updatedAt" = ${NOW}
     WHERE id = ANY(${ids}) AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
}

/** Gives a lease back without counting the attempt (graceful shutdown). */
export async function releaseLease(db: Db, task: LeasedTask, workerId: string): Promise<void> {
  await db.$executeRaw`
    UPDATE "ProvisioningTask" SET status = 'PENDING', "leaseUntil" = NULL, "leasedBy" = NULL,
           attempts = GREATEST(attempts - 1, 0), "runAfter" = ${NOW}, "updatedAt" = ${NOW}
     WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
}

export class TaskRunner {
  private readonly running = new Map<string, Promise<void>>();
  private readonly leased = new Map<string, LeasedTask>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private polling: Promise<void> | null = null;
  /** Set when the last poll failed (database down): shown in health. */
  lastPollError: string | null = null;
  completed = 0;
  failed = 0;

  constructor(
    private readonly ctx: ReconcileContext,
    private readonly options: RunnerOptions,
    private readonly log: Logger,
    /** Polls are the worker's probe of the database: a failed one backs off (capped, with jitter) instead of retrying every pollMs. */
    private readonly outages?: OutageTracker,
    /** Task counters and durations for GET /metrics (metrics.ts); absent: not counted. */
    private readonly metrics?: WorkerMetrics,
  ) {}

  get inFlight(): number {
    return this.running.size;
  }

  start(): void {
    this.stopped = false;
    this.tick();
  }

  private tick(): void {
    if (this.stopped || this.polling) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let next = this.options.pollMs;
    this.polling = this.pollOnce()
      .then(
        () => undefined,
        (error: unknown) => {
          this.lastPollError = errorMessage(error);
          if (this.outages) next = this.outages.failure("database", error);
          this.log.error("polling for tasks failed", { error: errorMessage(error), retryInMs: next });
        },
      )
      .finally(() => {
        this.polling = null;
        if (!this.stopped) this.timer = setTimeout(() => this.tick(), next);
      });
  }

  /** Leases what fits under the concurrency limit and starts it; resolves once leased (not when done). */
  async pollOnce(): Promise<number> {
    const batchSize = Math.max(1, this.options.batchSize ?? 1);
    let leasedCount = 0;
    while (this.running.size < this.options.concurrency && !this.stopped) {
      const tasks = await leaseTasks(this.ctx.db, this.options.workerId, batchSize, this.options.leaseMs, [...this.leased.keys()]);
      this.lastPollError = null;
      this.outages?.success("database");
      if (tasks.length === 0) break;
      leasedCount += tasks.length;
      const key = tasks[0]!.id;
      for (const task of tasks) this.leased.set(task.id, task);
      const work = tasks.length === 1 ? this.run(tasks[0]!) : this.runBatch(tasks);
      const p = work
        .catch((error: unknown) => {
          // Recording the outcome failed (database gone): the leases expire and
          // the tasks are leased again, so nothing is lost; say so and go on.
          this.lastPollError = errorMessage(error);
          this.log.error("could not record the outcome of tasks; their leases will expire and they will run again", { tasks: tasks.length, error: errorMessage(error) });
        })
        .finally(() => {
          this.running.delete(key);
          for (const task of tasks) this.leased.delete(task.id);
          // A finished step may unblock the entity's next one: look again now.
          if (!this.stopped && this.timer) setImmediate(() => this.tick());
        });
      this.running.set(key, p);
      if (tasks.length < batchSize) break;
    }
    return leasedCount;
  }

  /**
   * Runs until every task is DONE or FAILED, or waits behind a FAILED step
   * (tests, bench). A task whose attempt failed is PENDING with a later
   * `runAfter` (backoff); drain waits for its retry rather than returning
   * with work outstanding, as the worker's own loop would retry it.
   */
  async drain(): Promise<void> {
    for (;;) {
      const n = await this.pollOnce();
      // The runner's own loop may be between leasing tasks and starting them
      // (leased in the database, not yet in `running`): wait for that poll.
      if (this.polling) {
        await this.polling;
        continue;
      }
      if (n === 0 && this.running.size === 0) {
        const waitMs = await msUntilNextRunnable(this.ctx.db);
        if (waitMs === null) return;
        await new Promise((r) => setTimeout(r, Math.min(Math.max(waitMs, 10), 1_000)));
        continue;
      }
      await Promise.race([...this.running.values(), new Promise((r) => setTimeout(r, 20))]);
    }
  }

  private async run(task: LeasedTask): Promise<void> {
    const { db } = this.ctx;
    const { workerId, leaseMs } = this.options;
    let leaseLost = false;
    const heartbeat = setInterval(() => {
      renewLease(db, task, workerId, leaseMs).then(
        (ok) => {
          if (!ok && !leaseLost) {
            leaseLost = true;
            this.log.warn("lost the lease of a running task; another worker may run it too (the work is idempotent)", { task: task.id, kind: task.kind });
          }
        },
        (error: unknown) => this.log.warn("renewing a lease failed", { task: task.id, error: errorMessage(error) }),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    const started = Date.now();
    try {
      if (task.entityType === "DataProduct") await this.markProvisioning(task.entityId);
      const handlerStarted = Date.now();
      const changes = await runTaskHandler(this.ctx, task);
      const handlerMs = Date.now() - handlerStarted;
      await this.complete(task, changes);
      this.completed++;
      this.metrics?.tasksCompleted.inc({ kind: task.kind });
      this.metrics?.taskDuration.observe({ kind: task.kind }, (Date.now() - started) / 1000);
      this.log.info("task done", { task: task.id, kind: task.kind, entity: `${task.entityType}:${task.entityId}`, attempt: task.attempts, ms: Date.now() - started, handlerMs, changes: changes.length, ...requestOf(task) });
    } catch (error) {
      await this.fail(task, error);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Runs many tasks with shared reads and Kafka requests (reconcile/batch.ts):
   * topics first, then credentials, then ACLs, so a subscription's grant finds
   * its account's credentials issued. Tasks of one entity are never in the
   * same batch (a step is leased only after the previous one is DONE). A group
   * that fails falls back to running its tasks one by one, so each task gets
   * its own error, attempt and backoff.
   */
  private async runBatch(tasks: LeasedTask[]): Promise<void> {
    const { db } = this.ctx;
    const { workerId, leaseMs } = this.options;
    const ids = tasks.map((t) => t.id);
    const heartbeat = setInterval(() => {
      renewLeases(db, ids, workerId, leaseMs).then(
        (n) => {
          if (n < ids.length) this.log.warn("lost the lease of some batched tasks; another worker may run them too (the work is idempotent)", { lost: ids.length - n });
        },
        (error: unknown) => this.log.warn("renewing leases failed", { error: errorMessage(error) }),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    const started = Date.now();
    const fallback = new Set<LeasedTask>();
    const changesOf = new Map<string, Change[]>();
    // Where a batch's time goes (logged with "batch done"): the bench and an operator read it.
    const phaseMs: Record<string, number> = {};
    let phaseStart = Date.now();
    const lap = (name: string) => {
      const now = Date.now();
      phaseMs[name] = (phaseMs[name] ?? 0) + now - phaseStart;
      phaseStart = now;
    };
    try {
      await this.markProvisioningMany(tasks.filter((t) => t.entityType === "DataProduct").map((t) => t.entityId));
      lap("mark");
      const plan = await planBatch(this.ctx, tasks);
      lap("plan");
      for (const t of plan.single) fallback.add(t);
      const phase = async (name: string, group: LeasedTask[], targetOf: (t: LeasedTask) => string, work: (targets: string[]) => Promise<Map<string, Change[]>>) => {
        const live = group.filter((t) => !fallback.has(t));
        if (live.length === 0) return;
        try {
          const result = await work([...new Set(live.map(targetOf))]);
          // A target's changes are reported once, on the first task that asked for it.
          const reported = new Set<string>();
          for (const t of live) {
            const target = targetOf(t);
            const changes = reported.has(target) ? [] : (result.get(target) ?? []);
            reported.add(target);
            changesOf.set(t.id, [...(changesOf.get(t.id) ?? []), ...changes]);
          }
        } catch (error) {
          this.log.warn("batched reconcile failed; running its tasks one by one", { tasks: live.length, error: errorMessage(error) });
          for (const t of live) fallback.add(t);
        }
        lap(name);
      };
      await phase("topics", plan.topics, (t) => t.entityId, (targets) => reconcileProductTopics(this.ctx, targets));
      await phase("credentials", plan.credentials, (t) => plan.accountOf.get(t.id) ?? "", (targets) => ensureCredentialsMany(this.ctx, targets));
      // A revoke takes the account's quota with it when it was the account's last live use (reconcile/quotas.ts).
      await phase("acls", plan.acls, (t) => plan.accountOf.get(t.id) ?? "", async (targets) => mergeChanges(await reconcilePrincipalsAcls(this.ctx, targets), await reconcileQuotasOf(this.ctx, targets)));
      const scopes = new Map<string, Set<string>>();
      for (const t of plan.grants) {
        const account = plan.accountOf.get(t.id) ?? "";
        const topics = scopes.get(account) ?? new Set<string>();
        topics.add(plan.topicOf.get(t.id) ?? "");
        scopes.set(account, topics);
      }
      // Accounts another batch holds are skipped, not waited for: their tasks go back to the queue (deferred).
      const deferred = new Set<LeasedTask>();
      await phase("grants", plan.grants, (t) => plan.accountOf.get(t.id) ?? "", async () => {
        const { changes, busy } = await reconcileGrantsSkippingBusy(this.ctx, scopes);
        for (const t of plan.grants) if (busy.has(plan.accountOf.get(t.id) ?? "")) deferred.add(t);
        return changes;
      });
      if (deferred.size > 0) await releaseLeases(db, [...deferred].map((t) => t.id), workerId);
      const done = tasks.filter((t) => !fallback.has(t) && !deferred.has(t));
      await this.completeMany(done, changesOf);
      lap("complete");
      this.completed += done.length;
      for (const t of done) this.metrics?.tasksCompleted.inc({ kind: t.kind });
      this.metrics?.taskDuration.observe({ kind: "batch" }, (Date.now() - started) / 1000);
      this.log.info("batch done", { tasks: done.length, fallback: fallback.size, deferred: deferred.size, ms: Date.now() - started, phaseMs });
      // A task a portal request queued gets its own line, so the request id leads from the portal's log to here.
      for (const t of done) if (t.requestId) this.log.info("task done", { task: t.id, kind: t.kind, entity: `${t.entityType}:${t.entityId}`, attempt: t.attempts, batched: true, changes: changesOf.get(t.id)?.length ?? 0, ...requestOf(t) });
    } catch (error) {
      // Bookkeeping itself failed (database): every task not yet DONE retries on its own.
      this.log.warn("batch failed; running its tasks one by one", { error: errorMessage(error) });
      for (const t of tasks) fallback.add(t);
    } finally {
      clearInterval(heartbeat);
    }
    for (const t of fallback) await this.run(t);
  }

  private async markProvisioningMany(productIds: string[]): Promise<void> {
    if (productIds.length === 0) return;
    await this.ctx.db.$transaction(async (tx) => {
      const moved = await tx.$queryRaw<{ id: string }[]>`
        UPDATE "DataProduct" SET status = 'PROVISIONING', "updatedAt" = ${NOW} WHERE id = ANY(${productIds}) AND status = 'APPROVED' RETURNING id`;
      if (moved.length > 0) {
        await tx.auditEvent.createMany({ data: moved.map((m) => ({ actorId: null, actorEmail: WORKER_ACTOR, action: "product.provisioning", entityType: "DataProduct", entityId: m.id, data: { from: "APPROVED", to: "PROVISIONING" } })) });
      }
    });
  }

  /** completeTask for many: DONE, audit, and the entities' status moves, in one transaction. */
  private async completeMany(tasks: LeasedTask[], changesOf: Map<string, Change[]>): Promise<void> {
    if (tasks.length === 0) return;
    const { workerId } = this.options;
    await this.ctx.db.$transaction(
      async (tx) => {
        const ids = tasks.map((t) => t.id);
        const doneRows = await tx.$queryRaw<{ id: string }[]>`
          UPDATE "ProvisioningTask" SET status = 'DONE', "completedAt" = ${NOW}, "leaseUntil" = NULL, "lastError" = NULL, "updatedAt" = ${NOW}
           WHERE id = ANY(${ids}) AND "leasedBy" = ${workerId} AND status = 'RUNNING' RETURNING id`;
        const doneIds = new Set(doneRows.map((r) => r.id));
        const done = tasks.filter((t) => doneIds.has(t.id));
        if (done.length < tasks.length) this.log.warn("some batched tasks finished after their lease was taken over", { count: tasks.length - done.length });
        const audits = done
          .filter((t) => (changesOf.get(t.id) ?? []).length > 0)
          .map((t) => ({
            actorId: null,
            actorEmail: WORKER_ACTOR,
            action: `provisioning.${t.kind.toLowerCase()}`,
            entityType: t.entityType,
            entityId: t.entityId,
            data: jsonSafe({ taskId: t.id, changes: (changesOf.get(t.id) ?? []).map((c) => ({ kind: c.kind, resource: c.resource, ...c.detail })) }),
          }));
        if (audits.length > 0) await tx.auditEvent.createMany({ data: audits });
        const entityIds = [...new Set(done.map((t) => t.entityId))];
        const open = await tx.provisioningTask.groupBy({ by: ["entityId"], where: { entityId: { in: entityIds }, status: { not: "DONE" } }, _count: true });
        const stillOpen = new Set(open.map((o) => o.entityId));
        const finishedProducts = [...new Set(done.filter((t) => t.entityType === "DataProduct" && !stillOpen.has(t.entityId)).map((t) => t.entityId))];
        const finishedGrants = [...new Set(done.filter((t) => t.entityType === "Subscription" && t.kind === "GRANT_SUBSCRIPTION_ACL" && !stillOpen.has(t.entityId)).map((t) => t.entityId))];
        if (finishedProducts.length > 0) {
          const before = await tx.$queryRaw<{ id: string; status: string }[]>`
            SELECT id, status::text AS status FROM "DataProduct" WHERE id = ANY(${finishedProducts}) AND status IN ('APPROVED', 'PROVISIONING') FOR UPDATE`;
          if (before.length > 0) {
            await tx.$executeRaw`UPDATE "DataProduct" SET status = 'ACTIVE', "updatedAt" = ${NOW} WHERE id = ANY(${before.map((b) => b.id)})`;
            await tx.auditEvent.createMany({ data: before.map((b) => ({ actorId: null, actorEmail: WORKER_ACTOR, action: "product.activated", entityType: "DataProduct", entityId: b.id, data: { from: b.status, to: "ACTIVE" } })) });
          }
        }
        if (finishedGrants.length > 0) {
          const moved = await tx.$queryRaw<{ id: string }[]>`
            UPDATE "Subscription" SET status = 'ACTIVE', "updatedAt" = ${NOW} WHERE id = ANY(${finishedGrants}) AND status = 'APPROVED' RETURNING id`;
          if (moved.length > 0) {
            await tx.auditEvent.createMany({ data: moved.map((m) => ({ actorId: null, actorEmail: WORKER_ACTOR, action: "subscription.activated", entityType: "Subscription", entityId: m.id, data: { from: "APPROVED", to: "ACTIVE" } })) });
          }
        }
      },
      { timeout: 60_000 },
    );
  }

  private async markProvisioning(productId: string): Promise<void> {
    await this.ctx.db.$transaction(async (tx) => {
      const n = await tx.dataProduct.updateMany({ where: { id: productId, status: "APPROVED" }, data: { status: "PROVISIONING" } });
      if (n.count === 1) await auditAsWorker(tx, "product.provisioning", "DataProduct", productId, { from: "APPROVED", to: "PROVISIONING" });
    });
  }

  private async complete(task: LeasedTask, changes: Change[]): Promise<void> {
    const { workerId } = this.options;
    await this.ctx.db.$transaction(async (tx) => {
      const n = await tx.$executeRaw`
        UPDATE "ProvisioningTask" SET status = 'DONE', "completedAt" = ${NOW}, "leaseUntil" = NULL, "lastError" = NULL, "updatedAt" = ${NOW}
         WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
      if (n !== 1) {
        // Taken over after our lease expired: the other worker records the outcome, once.
        this.log.warn("task finished after its lease was taken over; leaving the outcome to the new owner", { task: task.id });
        return;
      }
      if (changes.length > 0) {
        await auditAsWorker(tx, `provisioning.${task.kind.toLowerCase()}`, task.entityType, task.entityId, {
          taskId: task.id,
          changes: changes.map((c) => ({ kind: c.kind, resource: c.resource, ...c.detail })),
        });
      }
      const open = await tx.provisioningTask.count({ where: { entityType: task.entityType, entityId: task.entityId, status: { not: "DONE" } } });
      if (open > 0) return;
      if (task.entityType === "DataProduct") {
        const product = await tx.dataProduct.findUnique({ where: { id: task.entityId }, select: { status: true } });
        const moved = await tx.dataProduct.updateMany({ where: { id: task.entityId, status: { in: ["APPROVED", "PROVISIONING"] } }, data: { status: "ACTIVE" } });
        if (moved.count === 1) await auditAsWorker(tx, "product.activated", "DataProduct", task.entityId, { from: product?.status, to: "ACTIVE" });
      } else if (task.entityType === "Subscription" && task.kind === "GRANT_SUBSCRIPTION_ACL") {
        const moved = await tx.subscription.updateMany({ where: { id: task.entityId, status: "APPROVED" }, data: { status: "ACTIVE" } });
        if (moved.count === 1) await auditAsWorker(tx, "subscription.activated", "Subscription", task.entityId, { from: "APPROVED", to: "ACTIVE" });
      }
    });
  }

  private async fail(task: LeasedTask, error: unknown): Promise<void> {
    const { workerId, maxAttempts, backoffBaseMs, backoffMaxMs } = this.options;
    const noAuthorizer = isSecurityDisabled(error);
    const noTieredStorage = isTieredStorageDisabled(error);
    const hint = noAuthorizer ? `${SECURITY_DISABLED_HINT} ` : noTieredStorage ? `${TIERED_STORAGE_DISABLED_HINT} ` : "";
    const message = `${hint}${errorMessage(error)}`.slice(0, 4000);
    const final = error instanceof NonRetryableError || noAuthorizer || noTieredStorage || task.attempts >= maxAttempts;
    if (final) {
      await this.ctx.db.$transaction(async (tx) => {
        const n = await tx.$executeRaw`
          UPDATE "ProvisioningTask" SET status = 'FAILED', "lastError" = ${message}, "leaseUntil" = NULL, "leasedBy" = NULL, "updatedAt" = ${NOW}
           WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
        if (n === 1) await auditAsWorker(tx, "provisioning.failed", task.entityType, task.entityId, { taskId: task.id, kind: task.kind, attempts: task.attempts, error: message });
      });
      this.failed++;
      this.metrics?.taskFailures.inc({ kind: task.kind, final: "true" });
      this.log.error("task failed for good", { task: task.id, kind: task.kind, attempts: task.attempts, error: message, ...requestOf(task) });
      return;
    }
    const delay = backoffDelayMs(task.attempts, backoffBaseMs, backoffMaxMs);
    await this.ctx.db.$executeRaw`
      UPDATE "ProvisioningTask" SET status = 'PENDING', "lastError" = ${message}, "leaseUntil" = NULL, "leasedBy" = NULL,
             "runAfter" = ${NOW} + ${msInterval(delay)}, "updatedAt" = ${NOW}
       WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
    this.metrics?.taskFailures.inc({ kind: task.kind, final: "false" });
    this.metrics?.taskRetries.inc({ kind: task.kind });
    this.log.warn("task attempt failed; will retry", { task: task.id, kind: task.kind, attempt: task.attempts, retryInMs: delay, error: message, ...requestOf(task) });
  }

  /**
   * Stops leasing; waits up to `graceMs` for running tasks, then gives the
   * leases of the rest back so another worker picks them up at once instead
   * of after the lease expires.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    const all = Promise.allSettled([...this.running.values()]);
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), graceMs))]);
    if (timedOut) {
      for (const task of this.leased.values()) {
        await releaseLease(this.ctx.db, task, this.options.workerId);
        this.log.warn("released the lease of an unfinished task on shutdown", { task: task.id, kind: task.kind });
      }
    }
  }
}

/** Both maps' changes per target. */
function mergeChanges(a: Map<string, Change[]>, b: Map<string, Change[]>): Map<string, Change[]> {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, [...(out.get(k) ?? []), ...v]);
  return out;
}
