/*
 * Batched forms of the per-entity reconcile functions, for the task runner
 * when it leases many tasks at once (a burst of approvals, a worker catching
 * up after an outage). Same rules, same locks, same results as
 * reconcileProductTopic / ensureCredentials / reconcilePrincipalAcls — only
 * the reads and Kafka requests are shared: one DescribeConfigs and one
 * CreateTopics for many topics, one transaction locking many accounts (in id
 * order, so two batches never deadlock) and one CreateAcls for all of them.
 */
import { consumerGroupPrefix } from "@kappa/catalog";
import type { AclBinding, TopicDescription } from "../kafka/cluster.ts";
import {
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
import { catalogTopicsAmong, CREDENTIAL_MECHANISM, ensureCredentials, reconcileProductTopic, type Change, type ReconcileContext } from "./entities.ts";
import { loadPrincipalGuard, refusal } from "./principal-guard.ts";

/** key → values, in one pass (the batch holds thousands of subscriptions). */
function groupBy<T>(rows: readonly T[], key: (row: T) => string, value: (row: T) => string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(key(r));
    if (list) list.push(value(r));
    else out.set(key(r), [value(r)]);
  }
  return out;
}

const LIVE = LIVE_PRODUCT_STATUSES as readonly string[];

/** Topics of many products: changes per product id. */
export async function reconcileProductTopics(ctx: ReconcileContext, productIds: string[]): Promise<Map<string, Change[]>> {
  const out = new Map<string, Change[]>(productIds.map((id) => [id, []]));
  const products = await ctx.db.dataProduct.findMany({ where: { id: { in: productIds } } });
  const live = products.filter((p) => LIVE.includes(p.status));
  // Retired (or otherwise not live) products are rare: the single path handles them.
  for (const p of products.filter((x) => !LIVE.includes(x.status))) out.set(p.id, await reconcileProductTopic(ctx, p.id));
  const described = await ctx.cluster.describeTopics(live.map((p) => p.topicName));
  const toCreate = live.filter((p) => !described.has(p.topicName));
  if (toCreate.length > 0) {
    await ctx.cluster.createTopics(toCreate.map((p) => topicSpecFor(p)));
    for (const p of toCreate) {
      const spec = topicSpecFor(p);
      out.set(p.id, [{ kind: "topic.created", entityType: "DataProduct", entityId: p.id, resource: `topic:${p.topicName}`, detail: { partitions: spec.partitions, configs: spec.configs } }]);
    }
  }
  // Existing topics (and ones someone else created first) converge one by one;
  // after the describe above this is the rare path.
  const after = toCreate.length > 0 ? await ctx.cluster.describeTopics(toCreate.map((p) => p.topicName)) : new Map<string, TopicDescription>();
  for (const p of live) {
    const current = described.get(p.topicName) ?? after.get(p.topicName);
    if (!current) throw new Error(`topic ${p.topicName} does not exist after CreateTopics`);
    if (!topicDiffIsEmpty(diffTopic(topicSpecFor(p), current))) out.set(p.id, [...(out.get(p.id) ?? []), ...(await reconcileProductTopic(ctx, p.id))]);
  }
  return out;
}

/** Credentials of many accounts: one describe, then the locked single path only for those that need it. */
export async function ensureCredentialsMany(ctx: ReconcileContext, accountIds: string[]): Promise<Map<string, Change[]>> {
  const out = new Map<string, Change[]>(accountIds.map((id) => [id, []]));
  const accounts = await ctx.db.serviceAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, name: true, secretHash: true } });
  const users = await ctx.cluster.describeScramUsers(accounts.map((a) => a.name));
  for (const a of accounts) {
    const ok = a.secretHash !== null && (users.get(a.name)?.includes(CREDENTIAL_MECHANISM) ?? false);
    if (!ok) out.set(a.id, await ensureCredentials(ctx, a.id));
  }
  return out;
}

/** ACLs of many principals in one transaction; changes per account id. */
export async function reconcilePrincipalsAcls(ctx: ReconcileContext, accountIds: string[]): Promise<Map<string, Change[]>> {
  const ids = [...new Set(accountIds)].sort();
  return ctx.db.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ANY(${ids}) ORDER BY id FOR UPDATE`;
      if (locked.length !== ids.length) throw new Error(`service accounts missing: ${ids.filter((id) => !locked.some((l) => l.id === id)).join(", ")}`);
      const accounts = await tx.serviceAccount.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, domainId: true, isProducer: true } });
      // One principal the worker does not own fails the batch before any
      // Kafka request; the runner then runs each task alone, so only that
      // account's task fails (with the refusal) and the others go through.
      const guard = await loadPrincipalGuard(tx, ctx.platformPrincipals ?? []);
      for (const a of accounts) {
        const problem = guard(a);
        if (problem) throw refusal(a, problem);
      }
      const producerDomains = accounts.filter((a) => a.isProducer).map((a) => a.domainId);
      const [produced, subscribed] = await Promise.all([
        tx.dataProduct.findMany({ where: { domainId: { in: producerDomains }, status: { in: [...LIVE_PRODUCT_STATUSES] } }, select: { domainId: true, topicName: true } }),
        tx.subscription.findMany({
          where: { serviceAccountId: { in: ids }, environment: null, status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] }, product: { status: { in: [...LIVE_PRODUCT_STATUSES] } } },
          select: { serviceAccountId: true, product: { select: { topicName: true } } },
        }),
      ]);
      const topicsOfDomain = groupBy(produced, (p) => p.domainId, (p) => p.topicName);
      const topicsOfAccount = groupBy(subscribed, (s) => s.serviceAccountId, (s) => s.product.topicName);
      const desired: AclBinding[] = [];
      for (const a of accounts) {
        const principal = `User:${a.name}`;
        if (a.isProducer) desired.push(...producerBindings(principal, (topicsOfDomain.get(a.domainId) ?? []).sort()));
        const topics = [...new Set(topicsOfAccount.get(a.id) ?? [])].sort();
        desired.push(...consumerBindings(principal, consumerGroupPrefix(a.name), topics));
      }
      const principals = accounts.map((a) => `User:${a.name}`);
      const actual = await ctx.cluster.describeAcls(principals);
      const own: Ownership = {
        principals: new Set(principals),
        topics: await catalogTopicsAmong(tx, actual.filter((b) => b.resourceType === "TOPIC").map((b) => b.resourceName)),
        groupPrefixOf: new Map(accounts.map((a) => [`User:${a.name}`, consumerGroupPrefix(a.name)])),
      };
      const diff = diffAcls(desired, actual, own);
      // Remove before adding: a revoke must never leave a window with both.
      await ctx.cluster.deleteAcls(diff.delete);
      await ctx.cluster.createAcls(diff.create);
      const accountOf = new Map(accounts.map((a) => [`User:${a.name}`, a.id]));
      const out = new Map<string, Change[]>(ids.map((id) => [id, []]));
      const describe = (b: AclBinding) => `${b.operation} on ${b.resourceType} ${b.patternType === "PREFIXED" ? `${b.resourceName}*` : b.resourceName}`;
      for (const [kind, list] of [["acl.deleted", diff.delete], ["acl.created", diff.create]] as const) {
        for (const b of list) {
          const id = accountOf.get(b.principal);
          if (!id) continue;
          out.get(id)?.push({ kind, entityType: "ServiceAccount", entityId: id, resource: `acl:${b.principal}`, detail: { acl: describe(b), binding: b } });
        }
      }
      return out;
    },
    { isolationLevel: "ReadCommitted", timeout: 120_000, maxWait: 30_000 },
  );
}
