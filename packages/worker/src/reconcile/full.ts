/*
 * The periodic full reconcile: compares the whole catalog with the whole
 * cluster a page at a time — 1,000 products per Metadata + DescribeConfigs
 * (only the four config keys the catalog owns), 100 accounts per round of
 * DescribeAcls and DescribeUserScramCredentials — so neither the worker's
 * memory nor any single request grows with the catalog, and only for the
 * entities that differ calls the same locked per-entity functions the tasks
 * use. Whatever it changes is drift — someone changed the cluster behind the
 * catalog's back — and is recorded in the audit log and the ReconcileRun row.
 *
 * Entities with an open provisioning task (PENDING, RUNNING or FAILED) are left
 * to that task: their difference is expected, not drift, and repairing it here
 * would race the task's own status bookkeeping.
 */
import { consumerGroupPrefix, dlqTopicOf } from "@kappa/catalog";
import { groupBy } from "../group-by.ts";
import { jsonSafe } from "../json.ts";
import type { AclBinding, TopicDescription } from "../kafka/cluster.ts";
import { errorMessage } from "../log.ts";
import { derivedJobBindings } from "./derived-grants.ts";
import {
  aclKey,
  consumerBindings,
  diffAcls,
  diffTopic,
  GRANTED_SUBSCRIPTION_STATUSES,
  LIVE_PRODUCT_STATUSES,
  OWNED_TOPIC_CONFIGS,
  dlqReadBindings,
  DLQ_RULE_SELECT,
  producedTopics,
  producerBindings,
  topicDiffIsEmpty,
  topicSpecFor,
  type Ownership,
} from "./diff.ts";
import { auditAsWorker, catalogTopicsAmong, CREDENTIAL_MECHANISM, ensureCredentials, reconcileDlqTopic, reconcilePrincipalAcls, reconcileProductTopic, type Change, type ReconcileContext } from "./entities.ts";
import { loadPrincipalGuard } from "./principal-guard.ts";
import { reconcileUserQuotas } from "./quotas.ts";

export interface FullReconcileResult {
  /** null: skipped because another worker's run is in progress. */
  runId: bigint | null;
  changes: Change[];
  /** Entities skipped because a provisioning task owns them right now. */
  skipped: number;
  /** Per-entity failures; the run continues past them. */
  errors: { resource: string; message: string }[];
  durationMs: number;
  /**
   * Milliseconds the run waited on each part, repairs excluded: `<section>.catalog`
   * (PostgreSQL reads), `<section>.cluster` (Kafka describes), `acls.diff` (the
   * comparison itself); for the benchmark and the worker's log.
   */
  timing: Record<string, number>;
}

/** Products per page of the topic section; accounts per page of the ACL section (an account can hold hundreds of bindings). */
const PAGE = 1_000;
const ACCOUNT_PAGE = 100;
/** Arbitrary constant naming the advisory lock of the full reconcile. */
const RECONCILE_LOCK_KEY = 4_242_001;
const RUN_STALE_MS = 10 * 60_000;

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
  if (!run) return { runId: null, changes: [], skipped: 0, errors: [], durationMs: Date.now() - started, timing: {} };
  const timing: Record<string, number> = {};
  const timed = async <T>(part: string, work: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      timing[part] = (timing[part] ?? 0) + performance.now() - t0;
    }
  };
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
    const busy = await timed("busy.catalog", () => busyEntities(ctx));
    const section = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        errors.push({ resource: name, message: errorMessage(error) });
        ctx.log.warn("reconcile section failed", { section: name, error: errorMessage(error) });
      }
    };
    const skip = () => {
      skipped++;
    };

    // --- topics, a page of products at a time (only the config keys the catalog owns)
    await section("topics", async () => {
      for await (const page of pages(PAGE, (after, take) =>
        timed("topics.catalog", () =>
          ctx.db.dataProduct.findMany({
            where: { status: { in: [...LIVE_PRODUCT_STATUSES] }, ...(after ? { id: { gt: after } } : {}) },
            select: { id: true, domainId: true, topicName: true, partitions: true, retentionMs: true, cleanupPolicy: true, tieredStorage: true, localRetentionMs: true, ...DLQ_RULE_SELECT },
            orderBy: { id: "asc" },
            take,
          }),
        ),
      )) {
        const described = await timed("topics.cluster", () => ctx.cluster.describeTopics(page.map((p) => p.topicName), OWNED_TOPIC_CONFIGS));
        // Dead-letter topics (issue 29): a missing one is recreated, its configs kept to the policy's.
        const dlqOf = new Map(page.filter((p) => p.qualityRules.length > 0).map((p) => [p.id, dlqTopicOf(p.topicName)]));
        const dlqs = dlqOf.size > 0 ? await ctx.cluster.describeTopics([...dlqOf.values()], OWNED_TOPIC_CONFIGS) : new Map<string, TopicDescription>();
        for (const p of page) {
          const dlq = dlqOf.get(p.id);
          if (dlq && !busy.products.has(p.id) && !dlqs.has(dlq)) await attempt(`topic:${dlq}`, () => reconcileDlqTopic(ctx, p));
          if (topicDiffIsEmpty(diffTopic(topicSpecFor(p), described.get(p.topicName)))) continue;
          if (busy.products.has(p.id)) skip();
          else await attempt(`topic:${p.topicName}`, () => reconcileProductTopic(ctx, p.id));
        }
      }
      if (ctx.retiredTopics === "delete") {
        for await (const page of pages(PAGE, (after, take) =>
          ctx.db.dataProduct.findMany({ where: { status: "RETIRED", ...(after ? { id: { gt: after } } : {}) }, select: { id: true, topicName: true }, orderBy: { id: "asc" }, take }),
        )) {
          const existing = await ctx.cluster.partitionCounts(page.map((p) => p.topicName));
          for (const p of page) if (existing.has(p.topicName)) await attempt(`topic:${p.topicName}`, () => reconcileProductTopic(ctx, p.id));
        }
      }
    });

    // --- ACLs and SCRAM users, a page of accounts at a time. Principals the
    // worker does not own (principal-guard.ts) are left alone entirely — no
    // ACL diff, no credentials — and each run lists them in its errors.
    const guard = await loadPrincipalGuard(ctx.db, ctx.platformPrincipals ?? []);
    for await (const page of pages(ACCOUNT_PAGE, (after, take) =>
      timed("acls.catalog", () =>
        ctx.db.serviceAccount.findMany({ where: after ? { id: { gt: after } } : {}, select: { id: true, name: true, domainId: true, isProducer: true }, orderBy: { id: "asc" }, take }),
      ),
    )) {
      if (options.stopping?.()) break;
      const accounts = page.filter((a) => {
        const problem = guard(a);
        if (problem) errors.push({ resource: `principal:User:${a.name}`, message: `not managed: ${problem}` });
        return problem === null;
      });
      if (accounts.length === 0) continue;
      const desired = await timed("acls.catalog", () => desiredBindingsOf(ctx, accounts));
      const busyAccount = (id: string) => busy.accounts.has(id);
      await section("acls", async () => {
        const principals = accounts.map((a) => `User:${a.name}`);
        const actual = await timed("acls.cluster", () => ctx.cluster.describeAcls(principals));
        const ownership: Ownership = {
          principals: new Set(principals),
          topics: await timed("acls.catalog", () => catalogTopicsAmong(ctx.db, actual.filter((b) => b.resourceType === "TOPIC").map((b) => b.resourceName))),
          groupPrefixOf: new Map(accounts.map((a) => [`User:${a.name}`, consumerGroupPrefix(a.name)])),
        };
        const diff = await timed("acls.diff", () => diffAcls(desired.bindings, actual, ownership));
        const accountByPrincipal = new Map(accounts.map((a) => [`User:${a.name}`, a]));
        for (const principal of new Set([...diff.create, ...diff.delete].map((b) => b.principal))) {
          const account = accountByPrincipal.get(principal);
          if (!account) continue;
          if (busyAccount(account.id)) skip();
          else await attempt(`acl:${principal}`, () => reconcilePrincipalAcls(ctx, account.id));
        }
      });
      const needsCredentials = accounts.filter((a) => desired.granted.has(a.id));
      if (needsCredentials.length > 0) {
        await section("users", async () => {
          const users = await timed("users.cluster", () => ctx.cluster.describeScramUsers(needsCredentials.map((a) => a.name)));
          // Whether a hash exists, without reading the column itself.
          const withHash = await timed("users.catalog", () =>
            ctx.db.serviceAccount.findMany({ where: { id: { in: needsCredentials.map((a) => a.id) }, secretHash: { not: null } }, select: { id: true } }),
          );
          const hashed = new Set(withHash.map((a) => a.id));
          for (const a of needsCredentials) {
            const ok = hashed.has(a.id) && (users.get(a.name)?.includes(CREDENTIAL_MECHANISM) ?? false);
            if (ok) continue;
            if (busyAccount(a.id)) skip();
            else await attempt(`user:${a.name}`, () => ensureCredentials(ctx, a.id));
          }
        });
      }
      // Quota classes (reconcile/quotas.ts) of every owned account of the page: one DescribeClientQuotas, AlterClientQuotas only
      // for what differs — set for accounts in use, removed from those with no live use left.
      const settled = accounts.filter((a) => !busyAccount(a.id));
      await section("quotas", () => attempt("quotas", () => reconcileUserQuotas(ctx.db, ctx.cluster, settled)));
    }
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
        drift: jsonSafe(drift),
        error: errors.length > 0 ? errors.map((e) => `${e.resource}: ${e.message}`).join("\n").slice(0, 10_000) : null,
      },
    });
  });
  if (changes.length > 0) ctx.log.warn("full reconcile repaired drift", { changes: changes.length, kinds: [...new Set(changes.map((c) => c.kind))] });
  return { runId: run.id, changes, skipped, errors, durationMs: Date.now() - started, timing };
}

/** Products and accounts with an open provisioning task (PENDING, RUNNING, FAILED): their difference is the task's to settle. */
async function busyEntities(ctx: ReconcileContext): Promise<{ products: Set<string>; accounts: Set<string> }> {
  const rows = await ctx.db.$queryRaw<{ entityType: string; entityId: string }[]>`
    SELECT DISTINCT "entityType", "entityId" FROM "ProvisioningTask" WHERE status <> 'DONE'`;
  const products = new Set(rows.filter((t) => t.entityType === "DataProduct").map((t) => t.entityId));
  const subscriptions = rows.filter((t) => t.entityType === "Subscription").map((t) => t.entityId);
  const accounts = new Set(rows.filter((t) => t.entityType === "ServiceAccount").map((t) => t.entityId));
  // A busy product's producer account and a busy subscription's account are busy too.
  for (let i = 0; i < subscriptions.length; i += 5_000) {
    for (const s of await ctx.db.subscription.findMany({ where: { id: { in: subscriptions.slice(i, i + 5_000) } }, select: { serviceAccountId: true } })) accounts.add(s.serviceAccountId);
  }
  const productIds = [...products];
  for (let i = 0; i < productIds.length; i += 5_000) {
    const domains = await ctx.db.dataProduct.findMany({ where: { id: { in: productIds.slice(i, i + 5_000) } }, select: { domainId: true }, distinct: ["domainId"] });
    const producers = await ctx.db.serviceAccount.findMany({ where: { isProducer: true, domainId: { in: domains.map((d) => d.domainId) } }, select: { id: true } });
    for (const a of producers) accounts.add(a.id);
  }
  return { products, accounts };
}

/** Keyset pages of rows ordered by id (`fetch` takes `size` rows after an id), so no read holds the whole catalog. */
async function* pages<T extends { id: string }>(size: number, fetch: (after: string | null, size: number) => Promise<T[]>): AsyncGenerator<T[]> {
  let after: string | null = null;
  for (;;) {
    const page = await fetch(after, size);
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (!last || page.length < size) return;
    after = last.id;
  }
}

/** What the catalog grants a page of accounts, and which of them hold any grant (and so need credentials). */
async function desiredBindingsOf(ctx: ReconcileContext, accounts: { id: string; name: string; domainId: string; isProducer: boolean }[]) {
  const producerDomains = accounts.filter((a) => a.isProducer).map((a) => a.domainId);
  const [produced, subscribed, jobs] = await Promise.all([
    producerDomains.length > 0
      ? ctx.db.dataProduct.findMany({ where: { domainId: { in: producerDomains }, status: { in: [...LIVE_PRODUCT_STATUSES] } }, select: { domainId: true, topicName: true, ...DLQ_RULE_SELECT } })
      : [],
    ctx.db.subscription.findMany({
      where: { serviceAccountId: { in: accounts.map((a) => a.id) }, environment: null, status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] }, product: { status: { in: [...LIVE_PRODUCT_STATUSES] } } },
      select: { serviceAccountId: true, product: { select: { topicName: true } } },
    }),
    // Derived products' job accounts (derived-grants.ts).
    derivedJobBindings(ctx.db, accounts),
  ]);
  const topicsOfDomain = groupBy(produced, (p) => p.domainId, (p) => ({ topicName: p.topicName, dlq: p.qualityRules.length > 0 }));
  const topicsOfAccount = new Map<string, Set<string>>();
  for (const s of subscribed) {
    const set = topicsOfAccount.get(s.serviceAccountId);
    if (set) set.add(s.product.topicName);
    else topicsOfAccount.set(s.serviceAccountId, new Set([s.product.topicName]));
  }
  const bindings: AclBinding[] = [...jobs.bindings];
  const granted = new Set<string>(jobs.accounts);
  for (const a of accounts) {
    const principal = `User:${a.name}`;
    const { topics: produces, dlqs } = producedTopics(a.isProducer ? (topicsOfDomain.get(a.domainId) ?? []) : []);
    const consumes = [...(topicsOfAccount.get(a.id) ?? [])];
    bindings.push(...producerBindings(principal, produces), ...dlqReadBindings(principal, consumerGroupPrefix(a.name), dlqs), ...consumerBindings(principal, consumerGroupPrefix(a.name), consumes));
    if (produces.length > 0 || consumes.length > 0) granted.add(a.id);
  }
  return { bindings, granted };
}

/** For tests and the bench: the set of ACL keys a list holds. */
export function aclKeys(bindings: readonly AclBinding[]): Set<string> {
  return new Set(bindings.map(aclKey));
}
