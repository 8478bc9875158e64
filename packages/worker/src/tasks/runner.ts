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
import type { Db } from "@kappa/catalog";
import { Prisma } from "@prisma/client";
import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import { backoffDelayMs } from "../reconcile/diff.ts";
import { auditAsWorker, type Change, type ReconcileContext } from "../reconcile/entities.ts";
import { runTaskHandler, NonRetryableError } from "./handlers.ts";

export interface LeasedTask {
  id: string;
  kind: string;
  payload: unknown;
  entityType: string;
  entityId: string;
  step: number;
  attempts: number;
}

export interface RunnerOptions {
  workerId: string;
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
const msInterval = (ms: number) => Prisma.sql`make_interval(secs => ${ms / 1000})`;

/** Leases up to `limit` eligible tasks for `workerId`. */
export async function leaseTasks(db: Db, workerId: string, limit: number, leaseMs: number): Promise<LeasedTask[]> {
  if (limit <= 0) return [];
  return db.$queryRaw<LeasedTask[]>`
    UPDATE "ProvisioningTask" AS t
       SET status = 'RUNNING', "leaseUntil" = ${NOW} + ${msInterval(leaseMs)}, "leasedBy" = ${workerId},
           attempts = t.attempts + 1, "updatedAt" = ${NOW}
     WHERE t.id IN (
       SELECT c.id FROM "ProvisioningTask" AS c
        WHERE ((c.status = 'PENDING' AND c."runAfter" <= ${NOW})
            OR (c.status = 'RUNNING' AND c."leaseUntil" < ${NOW}))
          AND NOT EXISTS (
            SELECT 1 FROM "ProvisioningTask" AS e
             WHERE e."entityType" = c."entityType" AND e."entityId" = c."entityId"
               AND e.step < c.step AND e.status <> 'DONE')
        ORDER BY c."runAfter", c."createdAt", c.step
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING t.id, t.kind, t.payload, t."entityType", t."entityId", t.step, t.attempts`;
}

/** Extends our lease; false when it is no longer ours (expired and taken over). */
export async function renewLease(db: Db, task: LeasedTask, workerId: string, leaseMs: number): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE "ProvisioningTask" SET "leaseUntil" = ${NOW} + ${msInterval(leaseMs)}, "updatedAt" = ${NOW}
     WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
  return n === 1;
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
    this.polling = this.pollOnce()
      .then(
        () => undefined,
        (error: unknown) => {
          this.lastPollError = errorMessage(error);
          this.log.error("polling for tasks failed", { error: errorMessage(error) });
        },
      )
      .finally(() => {
        this.polling = null;
        if (!this.stopped) this.timer = setTimeout(() => this.tick(), this.options.pollMs);
      });
  }

  /** Leases what fits under the concurrency limit and starts it; resolves once leased (not when done). */
  async pollOnce(): Promise<number> {
    const free = this.options.concurrency - this.running.size;
    const tasks = await leaseTasks(this.ctx.db, this.options.workerId, free, this.options.leaseMs);
    this.lastPollError = null;
    for (const task of tasks) {
      this.leased.set(task.id, task);
      const p = this.run(task).finally(() => {
        this.running.delete(task.id);
        this.leased.delete(task.id);
        // A finished step may unblock the entity's next one: look again now.
        if (!this.stopped && this.timer) setImmediate(() => this.tick());
      });
      this.running.set(task.id, p);
    }
    return tasks.length;
  }

  /** Runs until no eligible task is left (tests, bench). */
  async drain(): Promise<void> {
    for (;;) {
      const n = await this.pollOnce();
      if (n === 0 && this.running.size === 0) return;
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
      const changes = await runTaskHandler(this.ctx, task);
      await this.complete(task, changes);
      this.completed++;
      this.log.info("task done", { task: task.id, kind: task.kind, entity: `${task.entityType}:${task.entityId}`, attempt: task.attempts, ms: Date.now() - started, changes: changes.length });
    } catch (error) {
      await this.fail(task, error);
    } finally {
      clearInterval(heartbeat);
    }
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
    const message = errorMessage(error).slice(0, 4000);
    const final = error instanceof NonRetryableError || task.attempts >= maxAttempts;
    if (final) {
      await this.ctx.db.$transaction(async (tx) => {
        const n = await tx.$executeRaw`
          UPDATE "ProvisioningTask" SET status = 'FAILED', "lastError" = ${message}, "leaseUntil" = NULL, "leasedBy" = NULL, "updatedAt" = ${NOW}
           WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
        if (n === 1) await auditAsWorker(tx, "provisioning.failed", task.entityType, task.entityId, { taskId: task.id, kind: task.kind, attempts: task.attempts, error: message });
      });
      this.failed++;
      this.log.error("task failed for good", { task: task.id, kind: task.kind, attempts: task.attempts, error: message });
      return;
    }
    const delay = backoffDelayMs(task.attempts, backoffBaseMs, backoffMaxMs);
    await this.ctx.db.$executeRaw`
      UPDATE "ProvisioningTask" SET status = 'PENDING', "lastError" = ${message}, "leaseUntil" = NULL, "leasedBy" = NULL,
             "runAfter" = ${NOW} + ${msInterval(delay)}, "updatedAt" = ${NOW}
       WHERE id = ${task.id} AND "leasedBy" = ${workerId} AND status = 'RUNNING'`;
    this.log.warn("task attempt failed; will retry", { task: task.id, kind: task.kind, attempt: task.attempts, retryInMs: delay, error: message });
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
