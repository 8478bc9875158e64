/*
 * Grants scoped to what a grant task is about: one principal's bindings on one
 * topic (READ/DESCRIBE for a subscriber, WRITE/DESCRIBE for the producer), on
 * its group prefix and on the cluster — brought to exactly what the catalog
 * grants now. A grant task therefore reads and writes in proportion to the
 * grant, not to everything the account holds: at 10,000 products an account
 * subscribes to hundreds of topics, and re-deriving all of its bindings for
 * each new subscription made convergence quadratic. Revokes and the full
 * reconcile still bring the whole principal in line (reconcilePrincipalAcls).
 *
 * Same locks as every ACL change: the accounts' rows FOR UPDATE in id order,
 * so a grant and a revoke of one account never interleave.
 */
import { consumerGroupPrefix, dlqTopicOf } from "@kappa/catalog";
import type { AclBinding, AclResourcePattern } from "../kafka/cluster.ts";
import { derivedJobBindings } from "./derived-grants.ts";
import {
  CLUSTER_RESOURCE_NAME,
  CONSUMER_TOPIC_OPERATIONS,
  consumerGroupBindings,
  diffAcls,
  DLQ_READ_OPERATIONS,
  GRANTED_SUBSCRIPTION_STATUSES,
  LIVE_PRODUCT_STATUSES,
  PRODUCER_TOPIC_OPERATIONS,
  producerClusterBindings,
  topicBindings,
  type Ownership,
} from "./diff.ts";
import { catalogTopicsAmong, type Change, type ReconcileContext } from "./entities.ts";

const LIVE = [...LIVE_PRODUCT_STATUSES] as string[];
const GRANTED = [...GRANTED_SUBSCRIPTION_STATUSES] as string[];

/** account id → the topics whose grants to reconcile. */
export type GrantScopes = Map<string, Set<string>>;

const describe = (b: AclBinding) => `${b.operation} on ${b.resourceType} ${b.patternType === "PREFIXED" ? `${b.resourceName}*` : b.resourceName}`;

/** Reconciles each account's bindings on its scoped topics, group prefix and the cluster; changes per account id. */
export async function reconcileGrants(ctx: ReconcileContext, scopes: GrantScopes): Promise<Map<string, Change[]>> {
  return (await grantsLocked(ctx, scopes, "wait")).changes;
}

/**
 * The same for a batch of the task runner, taking only the accounts no other
 * transaction holds (SKIP LOCKED) and naming the rest `busy`: the runner gives
 * those tasks back to the queue for its next poll. Waiting instead made the
 * runner's concurrent batches — each spanning most of the consumer accounts —
 * run one after the other on the accounts' row locks.
 */
export async function reconcileGrantsSkippingBusy(ctx: ReconcileContext, scopes: GrantScopes): Promise<{ changes: Map<string, Change[]>; busy: Set<string> }> {
  return grantsLocked(ctx, scopes, "skip");
}

async function grantsLocked(ctx: ReconcileContext, allScopes: GrantScopes, mode: "wait" | "skip"): Promise<{ changes: Map<string, Change[]>; busy: Set<string> }> {
  const wanted = [...allScopes.keys()].sort();
  const busy = new Set<string>();
  if (wanted.length === 0) return { changes: new Map(), busy };
  return ctx.db.$transaction(
    async (tx) => {
      const locked =
        mode === "wait"
          ? await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ANY(${wanted}) ORDER BY id FOR UPDATE`
          : await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ANY(${wanted}) ORDER BY id FOR UPDATE SKIP LOCKED`;
      const lockedIds = new Set(locked.map((l) => l.id));
      if (mode === "wait" && locked.length !== wanted.length) throw new Error(`service accounts missing: ${wanted.filter((id) => !lockedIds.has(id)).join(", ")}`);
      const skipped = wanted.filter((id) => !lockedIds.has(id));
      if (skipped.length > 0) {
        // Skipped rows exist (held by another transaction) or were deleted: the latter fails the batch as before.
        const existing = new Set((await tx.serviceAccount.findMany({ where: { id: { in: skipped } }, select: { id: true } })).map((a) => a.id));
        const gone = skipped.filter((id) => !existing.has(id));
        if (gone.length > 0) throw new Error(`service accounts missing: ${gone.join(", ")}`);
        for (const id of skipped) busy.add(id);
      }
      const ids = wanted.filter((id) => lockedIds.has(id));
      const out = new Map<string, Change[]>(ids.map((id) => [id, []]));
      if (ids.length === 0) return { changes: out, busy };
      const accounts = await tx.serviceAccount.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, domainId: true, isProducer: true } });
      // A producer's grant on a product topic covers its dead-letter topic `<topic>.dlq` too (issue 29): granted with a DLQ rule, removed without one.
      const producerIds = new Set(accounts.filter((a) => a.isProducer).map((a) => a.id));
      const scopes: GrantScopes = new Map(
        ids.map((id) => {
          const scoped = allScopes.get(id) ?? new Set<string>();
          return [id, producerIds.has(id) ? new Set([...scoped, ...[...scoped].filter((t) => t !== "" && !t.endsWith(".dlq")).map(dlqTopicOf)]) : scoped];
        }),
      );
      const topics = [...new Set([...scopes.values()].flatMap((s) => [...s]))];
      const producerDomains = [...new Set(accounts.filter((a) => a.isProducer).map((a) => a.domainId))];
      const [withDlq, dlqDomains] = producerDomains.length > 0
        ? await Promise.all([
            tx.dataProduct.findMany({ where: { topicName: { in: topics }, domainId: { in: producerDomains }, status: { in: [...LIVE_PRODUCT_STATUSES] }, qualityRules: { some: { onFailure: "DLQ" } } }, select: { topicName: true, domainId: true } }),
            tx.dataProduct.findMany({ where: { domainId: { in: producerDomains }, status: { in: [...LIVE_PRODUCT_STATUSES] }, qualityRules: { some: { onFailure: "DLQ" } } }, select: { domainId: true }, distinct: ["domainId"] }),
          ])
        : [[], []];
      const dlqDomainOf = new Map(withDlq.map((p) => [dlqTopicOf(p.topicName), p.domainId]));
      const readsDlqs = new Set(dlqDomains.map((d) => d.domainId));
      const [subscribed, subscribers, liveTopics, producingDomains] = await Promise.all([
        // (account, topic) pairs of the scope that a granted subscription to a live product covers now
        tx.$queryRaw<{ accountId: string; topic: string }[]>`
          SELECT DISTINCT s."serviceAccountId" AS "accountId", p."topicName" AS topic
            FROM "Subscription" s JOIN "DataProduct" p ON p.id = s."productId"
           WHERE s."serviceAccountId" = ANY(${ids}) AND p."topicName" = ANY(${topics})
             AND s.environment IS NULL AND s.status::text = ANY(${GRANTED}) AND p.status::text = ANY(${LIVE})`,
        // accounts that hold any granted subscription to a live product (their group prefix stays)
        tx.$queryRaw<{ accountId: string }[]>`
          SELECT DISTINCT s."serviceAccountId" AS "accountId"
            FROM "Subscription" s JOIN "DataProduct" p ON p.id = s."productId"
           WHERE s."serviceAccountId" = ANY(${ids}) AND s.environment IS NULL AND s.status::text = ANY(${GRANTED}) AND p.status::text = ANY(${LIVE})`,
        tx.$queryRaw<{ domainId: string; topic: string }[]>`
          SELECT "domainId", "topicName" AS topic FROM "DataProduct" WHERE "topicName" = ANY(${topics}) AND status::text = ANY(${LIVE})`,
        producerDomains.length > 0
          ? tx.$queryRaw<{ domainId: string }[]>`SELECT DISTINCT "domainId" FROM "DataProduct" WHERE "domainId" = ANY(${producerDomains}) AND status::text = ANY(${LIVE})`
          : Promise.resolve([]),
      ]);
      const consumes = new Set(subscribed.map((r) => `${r.accountId}\u0000${r.topic}`));
      const hasSubscription = new Set(subscribers.map((r) => r.accountId));
      const domainOfLiveTopic = new Map(liveTopics.map((r) => [r.topic, r.domainId]));
      const producing = new Set(producingDomains.map((r) => r.domainId));

      const desired: AclBinding[] = [];
      const inScope = new Map<string, (b: AclBinding) => boolean>();
      for (const a of accounts) {
        const principal = `User:${a.name}`;
        const scoped = scopes.get(a.id) ?? new Set<string>();
        const prefix = consumerGroupPrefix(a.name);
        const produced = a.isProducer ? [...scoped].filter((t) => domainOfLiveTopic.get(t) === a.domainId) : [];
        const consumed = [...scoped].filter((t) => consumes.has(`${a.id}\u0000${t}`));
        desired.push(...topicBindings(principal, produced, PRODUCER_TOPIC_OPERATIONS), ...topicBindings(principal, consumed, CONSUMER_TOPIC_OPERATIONS));
        // The cluster and group bindings depend on everything the account holds, not on the scoped topics.
        if (a.isProducer && producing.has(a.domainId)) desired.push(...producerClusterBindings(principal));
        if (hasSubscription.has(a.id)) desired.push(...consumerGroupBindings(principal, prefix));
        if (a.isProducer) {
          const dlqs = [...scoped].filter((t) => dlqDomainOf.get(t) === a.domainId);
          desired.push(...topicBindings(principal, dlqs, PRODUCER_TOPIC_OPERATIONS), ...topicBindings(principal, dlqs, DLQ_READ_OPERATIONS));
          // The group namespace stays while any of the domain's products has a DLQ (or the account subscribes).
          if (readsDlqs.has(a.domainId)) desired.push(...consumerGroupBindings(principal, prefix));
        }
        inScope.set(principal, (b) =>
          (b.resourceType === "TOPIC" && b.patternType === "LITERAL" && scoped.has(b.resourceName)) ||
          (b.resourceType === "GROUP" && b.patternType === "PREFIXED" && b.resourceName === prefix) ||
          (b.resourceType === "CLUSTER" && b.resourceName === CLUSTER_RESOURCE_NAME),
        );
      }
      // Derived products' job accounts (derived-grants.ts), kept to the same scope as the rest.
      desired.push(...(await derivedJobBindings(tx, accounts)).bindings.filter((b) => inScope.get(b.principal)?.(b) ?? false));
      const principals = accounts.map((a) => `User:${a.name}`);
      // Asked by resource, not by principal: a consumer account holds
      // bindings on hundreds of topics, and describing all of them for every
      // grant batch (then keeping the few in scope) was most of its time.
      // These patterns are exactly what inScope keeps.
      const patterns: AclResourcePattern[] = [
        ...topics.filter((t) => t !== "").map((t) => ({ resourceType: "TOPIC" as const, resourceName: t, patternType: "LITERAL" as const })),
        ...[...new Set(accounts.map((a) => consumerGroupPrefix(a.name)))].map((p) => ({ resourceType: "GROUP" as const, resourceName: p, patternType: "PREFIXED" as const })),
        { resourceType: "CLUSTER", resourceName: CLUSTER_RESOURCE_NAME },
      ];
      const actual = (await ctx.cluster.describeAclsOn(patterns)).filter((b) => inScope.get(b.principal)?.(b) ?? false);
      const own: Ownership = {
        principals: new Set(principals),
        topics: await catalogTopicsAmong(tx, topics),
        groupPrefixOf: new Map(accounts.map((a) => [`User:${a.name}`, consumerGroupPrefix(a.name)])),
      };
      const diff = diffAcls(desired, actual, own);
      // Remove before adding: a revoke must never leave a window with both.
      await ctx.cluster.deleteAcls(diff.delete);
      await ctx.cluster.createAcls(diff.create);
      const accountOf = new Map(accounts.map((a) => [`User:${a.name}`, a.id]));
      for (const [kind, list] of [["acl.deleted", diff.delete], ["acl.created", diff.create]] as const) {
        for (const b of list) {
          const id = accountOf.get(b.principal);
          if (id) out.get(id)?.push({ kind, entityType: "ServiceAccount", entityId: id, resource: `acl:${b.principal}`, detail: { acl: describe(b), binding: b } });
        }
      }
      return { changes: out, busy };
    },
    { isolationLevel: "ReadCommitted", timeout: 120_000, maxWait: 30_000 },
  );
}
