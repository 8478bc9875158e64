/*
 * The periodic full reconcile: compares the whole catalog with the whole
 * cluster in a handful of requests (one topic listing, one DescribeConfigs,
 * one DescribeAcls, one DescribeUserScramCredentials), and only for the
 * entities that differ calls the same locked per-entity functions the tasks
 * use. Whatever it changes is drift — someone changed the cluster behind the
 * catalog's back — and is recorded in the audit log and the ReconcileRun row.
 *
 * Entities with an open provisioning task (PENDING, RUNNING or FAILED) are left
 * to that task: their difference is expected, not drift, and repairing it here
 * would race the task's own status bookkeeping.
 */
import { consumerGroupPrefix } from "@kappa/catalog";
import type { AclBinding } from "../kafka/cluster.ts";
import { errorMessage } from "../log.ts";
import {
  aclKey,
  consumerBindings,
  diffAcls,
  diffTopic,
  GRANTED_SUBSCRIPTION_STATUSES,
  LIVE_PRODUCT_STATUSES,
  producerBindings,
  topicDiffIsEmpty,
  topicSpecFor,
  type Ownership,
} from "./diff.ts";
import { auditAsWorker, CREDENTIAL_MECHANISM, ensureCredentials, reconcilePrincipalAcls, reconcileProductTopic, type Change, type ReconcileContext } from "./entities.ts";
import { loadPrincipalGuard } from "./principal-guard.ts";

export interface FullReconcileResult {
  /** null: skipped because another worker's run is in progress. */
  runId: bigint | null;
  changes: Change[];
  /** Entities skipped because a provisioning task owns them right now. */
  skipped: number;
  /** Per-entity failures; the run continues past them. */
  errors: { resource: string; message: string }[];
  durationMs: number;
}

const LIVE = LIVE_PRODUCT_STATUSES as readonly string[];
/** Arbitrary constant naming the advisory lock of the full reconcile. */
const RECONCILE_LOCK_KEY = 4_242_001;
const RUN_STALE_MS = 10 * 60_000;
const GRANTED = GRANTED_SUBSCRIPTION_STATUSES as readonly string[];

export async function fullReconcile(ctx: ReconcileContext, workerId: string, options: { stopping?: () => boolean } = {}): Promise<FullReconcileResult> {
  const started = Date.now();
  // One full reconcile at a time across all workers: the check and the insert
  // happen under a transaction-scoped advisory lock. A run left unfinished by
  // a crashed worker stops counting after RUN_STALE_MS.
  const run = await ctx.db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${RECONCILE_LOCK_KEY})`;
    const busy = await tx.reconcileRun.findFirst({ where: { finishedAt: null, workerId: { not: workerId }, startedAt: { gt: new Date(Date.now() - RUN_STALE_MS) } } });
    return busy ? null : tx.reconcileRun.create({ data: { workerId } });
  });
  if (!run) return { runId: null, changes: [], skipped: 0, errors: [], durationMs: Date.now() - started };
  const changes: Change[] = [];
  const errors: FullReconcileResult["errors"] = [];
  let skipped = 0;
  const attempt = async (resource: string, work: () => Promise<Change[]>) => {
    // Shutting down: leave the rest to the next run (of this or another worker).
    if (options.stopping?.()) return;
    try {
      changes.push(...(await work()));
    } catch (error) {
      errors.push({ resource, message: errorMessage(error) });
      ctx.log.warn("reconcile of one resource failed", { resource, error: errorMessage(error) });
    }
  };

  try {
    const [products, allAccounts, subscriptions, openTasks] = await Promise.all([
      ctx.db.dataProduct.findMany({
        where: { status: { notIn: ["DRAFT", "IN_REVIEW", "REJECTED"] } },
        select: { id: true, domainId: true, status: true, topicName: true, partitions: true, retentionMs: true, cleanupPolicy: true, tieredStorage: true, localRetentionMs: true },
      }),
      ctx.db.serviceAccount.findMany({ select: { id: true, name: true, domainId: true, isProducer: true } }),
      ctx.db.subscription.findMany({
        where: { status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] } },
        select: { id: true, serviceAccountId: true, productId: true },
      }),
      ctx.db.provisioningTask.findMany({ where: { status: { not: "DONE" } }, select: { entityType: true, entityId: true } }),
    ]);
    // Principals the worker does not own are left alone entirely (no ACL
    // diff, no credentials), and each run says so.
    const guard = await loadPrincipalGuard(ctx.db, ctx.platformPrincipals ?? []);
    const accounts = allAccounts.filter((a) => {
      const problem = guard(a);
      if (problem) errors.push({ resource: `principal:User:${a.name}`, message: `not managed: ${problem}` });
      return problem === null;
    });
    const accountsWithHash = new Set(
      (await ctx.db.serviceAccount.findMany({ where: { secretHash: { not: null } }, select: { id: true } })).map((a) => a.id),
    );

    const productById = new Map(products.map((p) => [p.id, p]));
    const busyProducts = new Set(openTasks.filter((t) => t.entityType === "DataProduct").map((t) => t.entityId));
    const busySubscriptions = new Set(openTasks.filter((t) => t.entityType === "Subscription").map((t) => t.entityId));
    const producerOfDomain = new Map(accounts.filter((a) => a.isProducer).map((a) => [a.domainId, a]));
    const busyAccounts = new Set<string>();
    for (const id of busyProducts) {
      const p = productById.get(id);
      const producer = p ? producerOfDomain.get(p.domainId) : undefined;
      if (producer) busyAccounts.add(producer.id);
    }
    if (busySubscriptions.size > 0) {
      const subs = await ctx.db.subscription.findMany({ where: { id: { in: [...busySubscriptions] } }, select: { serviceAccountId: true } });
      for (const s of subs) busyAccounts.add(s.serviceAccountId);
    }

    const section = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        errors.push({ resource: name, message: errorMessage(error) });
        ctx.log.warn("reconcile section failed", { section: name, error: errorMessage(error) });
      }
    };

    // --- topics
    const live = products.filter((p) => LIVE.includes(p.status));
    await section("topics", async () => {
    const existing = new Set(await ctx.cluster.listTopics());
    const described = await ctx.cluster.describeTopics(live.map((p) => p.topicName).filter((t) => existing.has(t)));
    for (const p of live) {
      const diff = diffTopic(topicSpecFor(p), described.get(p.topicName));
      if (topicDiffIsEmpty(diff)) continue;
      if (busyProducts.has(p.id)) {
        skipped++;
        continue;
      }
      await attempt(`topic:${p.topicName}`, () => reconcileProductTopic(ctx, p.id));
    }
    if (ctx.retiredTopics === "delete") {
      for (const p of products.filter((x) => x.status === "RETIRED" && existing.has(x.topicName))) {
        await attempt(`topic:${p.topicName}`, () => reconcileProductTopic(ctx, p.id));
      }
    }
    });

    // --- ACLs, all principals at once
    const liveTopicsOfDomain = new Map<string, string[]>();
    for (const p of live) liveTopicsOfDomain.set(p.domainId, [...(liveTopicsOfDomain.get(p.domainId) ?? []), p.topicName]);
    const subscribedTopics = new Map<string, Set<string>>();
    for (const s of subscriptions) {
      const p = productById.get(s.productId);
      if (!p || !LIVE.includes(p.status)) continue;
      const set = subscribedTopics.get(s.serviceAccountId) ?? new Set<string>();
      set.add(p.topicName);
      subscribedTopics.set(s.serviceAccountId, set);
    }
    const desired: AclBinding[] = [];
    const needsCredentials: typeof accounts = [];
    for (const a of accounts) {
      const principal = `User:${a.name}`;
      const produces = a.isProducer ? (liveTopicsOfDomain.get(a.domainId) ?? []) : [];
      const consumes = [...(subscribedTopics.get(a.id) ?? [])];
      desired.push(...producerBindings(principal, produces), ...consumerBindings(principal, consumerGroupPrefix(a.name), consumes));
      if (produces.length > 0 || consumes.length > 0) needsCredentials.push(a);
    }
    const ownership: Ownership = {
      principals: new Set(accounts.map((a) => `User:${a.name}`)),
      topics: new Set(products.map((p) => p.topicName)),
      groupPrefixOf: new Map(accounts.map((a) => [`User:${a.name}`, consumerGroupPrefix(a.name)])),
    };
    await section("acls", async () => {
    const diff = diffAcls(desired, await ctx.cluster.describeAcls(), ownership);
    const accountByPrincipal = new Map(accounts.map((a) => [`User:${a.name}`, a]));
    const principalsToFix = new Set([...diff.create, ...diff.delete].map((b) => b.principal));
    for (const principal of principalsToFix) {
      const account = accountByPrincipal.get(principal);
      if (!account) continue;
      if (busyAccounts.has(account.id)) {
        skipped++;
        continue;
      }
      await attempt(`acl:${principal}`, () => reconcilePrincipalAcls(ctx, account.id));
    }
    });

    // --- SCRAM users
    if (needsCredentials.length > 0) await section("users", async () => {
      const users = await ctx.cluster.describeScramUsers(needsCredentials.map((a) => a.name));
      for (const a of needsCredentials) {
        const ok = accountsWithHash.has(a.id) && (users.get(a.name)?.includes(CREDENTIAL_MECHANISM) ?? false);
        if (ok) continue;
        if (busyAccounts.has(a.id)) {
          skipped++;
          continue;
        }
        await attempt(`user:${a.name}`, () => ensureCredentials(ctx, a.id));
      }
    });
  } catch (error) {
    errors.push({ resource: "cluster", message: errorMessage(error) });
  }

  const drift = changes.map((c) => ({ kind: c.kind, resource: c.resource, entityType: c.entityType, entityId: c.entityId, detail: c.detail }));
  await ctx.db.$transaction(async (tx) => {
    for (const c of changes) await auditAsWorker(tx, "drift.repaired", c.entityType, c.entityId, { kind: c.kind, resource: c.resource, ...c.detail });
    await tx.reconcileRun.update({
      where: { id: run.id },
      data: {
        finishedAt: new Date(),
        driftCount: changes.length,
        drift: JSON.parse(JSON.stringify(drift, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))),
        error: errors.length > 0 ? errors.map((e) => `${e.resource}: ${e.message}`).join("\n").slice(0, 10_000) : null,
      },
    });
  });
  if (changes.length > 0) ctx.log.warn("full reconcile repaired drift", { changes: changes.length, kinds: [...new Set(changes.map((c) => c.kind))] });
  return { runId: run.id, changes, skipped, errors, durationMs: Date.now() - started };
}

/** For tests and the bench: the set of ACL keys a list holds. */
export function aclKeys(bindings: readonly AclBinding[]): Set<string> {
  return new Set(bindings.map(aclKey));
}
