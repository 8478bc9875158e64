/*
 * Per-entity reconcile functions: read what the catalog wants for one topic or
 * one principal, describe what Kafka has, apply only the difference. The
 * provisioning tasks and the periodic full reconcile both call these, so a task
 * retried after a crash, a second worker, or a drift repair all converge on the
 * same state and never double-apply.
 *
 * A principal's ACLs and credentials are changed only while holding a row lock
 * on its ServiceAccount: two tasks for one account (a product's producer grant
 * and a subscription grant, or a grant racing a revoke) would otherwise read the
 * desired state at different moments and undo each other on the cluster.
 */
import { activePolicy, consumerGroupPrefix, dlqTopicOf, encryptSecret, qualityLimitsFromPolicy, generatePassword, hashPassword, type Db, type ReservedName, type Tx } from "@kappa/catalog";
import { jsonSafe } from "../json.ts";
import type { AclBinding, KafkaCluster, TopicSpec } from "../kafka/cluster.ts";
import type { PlatformProducer } from "../kafka/producer.ts";
import type { Logger } from "../log.ts";
import { derivedJobBindings, sealJobPassword } from "./derived-grants.ts";
import {
  consumerBindings,
  diffAcls,
  diffTopic,
  dlqReadBindings,
  DLQ_RULE_SELECT,
  GRANTED_SUBSCRIPTION_STATUSES,
  LIVE_PRODUCT_STATUSES,
  producedTopics,
  producerBindings,
  topicDiffIsEmpty,
  topicSpecFor,
  type Ownership,
} from "./diff.ts";
import { assertOwnedPrincipal } from "./principal-guard.ts";
import { reconcileUserQuotas } from "./quotas.ts";
import { sealedScramCredential } from "./scram-credential.ts";

export interface ReconcileContext {
  db: Db;
  cluster: KafkaCluster;
  secretsKey: Buffer;
  log: Logger;
  /** What happens to a RETIRED product's topic. */
  retiredTopics: "delete" | "keep";
  /**
   * Principals this worker never alters whatever the catalog says: its own
   * admin user and the cluster's super users (see principal-guard.ts).
   */
  platformPrincipals?: readonly ReservedName[];
  /** The platform's producer (kafka/producer.ts: acks=all, idempotent) for what the worker writes: redriven dead letters. Absent: redrives fail saying so. */
  producer?: PlatformProducer;
}

/** One change made on the cluster, as recorded in the audit log and the reconcile run. */
export interface Change {
  kind:
    | "topic.created"
    | "topic.partitions.increased"
    | "topic.configs.set"
    | "topic.deleted"
    | "topic.partitions.above-catalog"
    | "acl.created"
    | "acl.deleted"
    | "credentials.issued"
    | "credentials.reissued"
    | "quota.set"
    | "quota.corrected"
    | "quota.removed";
  entityType: "DataProduct" | "ServiceAccount";
  entityId: string;
  resource: string;
  detail: Record<string, unknown>;
}

export const WORKER_ACTOR = "worker";

const DLQ_SUFFIX = ".dlq";

/** Appends an audit event as the worker (no user id: the worker acts on decisions people made). */
export async function auditAsWorker(tx: Db | Tx, action: string, entityType: string, entityId: string, data: Record<string, unknown>): Promise<void> {
  await tx.auditEvent.create({ data: { actorId: null, actorEmail: WORKER_ACTOR, action, entityType, entityId, data: jsonSafe(data) } });
}

// ---------------------------------------------------------------------------
// Topics

/** Creates the product's topic or brings partitions and configs to the catalog's values; deletes it when retired and the policy says so. */
export async function reconcileProductTopic(ctx: ReconcileContext, productId: string): Promise<Change[]> {
  const product = await ctx.db.dataProduct.findUniqueOrThrow({ where: { id: productId } });
  const live = (LIVE_PRODUCT_STATUSES as readonly string[]).includes(product.status);
  const current = (await ctx.cluster.describeTopics([product.topicName])).get(product.topicName);
  const changes: Change[] = [];
  const change = (kind: Change["kind"], detail: Record<string, unknown>) =>
    changes.push({ kind, entityType: "DataProduct", entityId: product.id, resource: `topic:${product.topicName}`, detail });

  if (!live) {
    if (product.status === "RETIRED" && ctx.retiredTopics === "delete" && current) {
      await ctx.cluster.deleteTopics([product.topicName]);
      change("topic.deleted", { reason: "product retired" });
    }
    if (product.status === "RETIRED" && ctx.retiredTopics === "delete") {
      const dlq = dlqTopicOf(product.topicName);
      if ((await ctx.cluster.describeTopics([dlq])).has(dlq)) {
        await ctx.cluster.deleteTopics([dlq]);
        changes.push({ kind: "topic.deleted", entityType: "DataProduct", entityId: product.id, resource: `topic:${dlq}`, detail: { reason: "product retired" } });
      }
    }
    return changes;
  }

  const desired = topicSpecFor(product);
  const diff = diffTopic(desired, current);
  changes.push(...(await reconcileDlqTopic(ctx, product)));
  if (topicDiffIsEmpty(diff) && !diff.partitionsAboveCatalog) return changes;
  if (diff.create) {
    await ctx.cluster.createTopics([diff.create]);
    // Another worker (or a person) may have created it first with other
    // settings: check what exists now instead of trusting our request.
    const after = (await ctx.cluster.describeTopics([product.topicName])).get(product.topicName);
    if (!after) throw new Error(`topic ${product.topicName} does not exist after CreateTopics`);
    const rest = diffTopic(desired, after);
    change("topic.created", { partitions: desired.partitions, configs: desired.configs });
    if (!topicDiffIsEmpty(rest)) changes.push(...(await applyTopicDiff(ctx, product.id, product.topicName, rest)));
    return changes;
  }
  changes.push(...(await applyTopicDiff(ctx, product.id, product.topicName, diff)));
  return changes;
}

/**
 * The dead-letter topic `<topic>.dlq` of a live product with a DLQ rule
 * (issue 29): one partition, `delete` cleanup, the policy's DLQ retention.
 * Created with the product or when a DLQ rule is approved; kept (with its
 * records) when the last DLQ rule goes, deleted with the product's topic.
 */
export async function reconcileDlqTopic(ctx: ReconcileContext, product: { id: string; topicName: string }): Promise<Change[]> {
  const rule = await ctx.db.dataQualityRule.findFirst({ where: { productId: product.id, onFailure: "DLQ" }, select: { id: true } });
  if (!rule) return [];
  const name = dlqTopicOf(product.topicName);
  const limits = qualityLimitsFromPolicy((await activePolicy(ctx.db)).document);
  const desired: TopicSpec = { name, partitions: 1, configs: { "retention.ms": String(limits.dlqRetentionMs), "cleanup.policy": "delete" } };
  const current = (await ctx.cluster.describeTopics([name])).get(name);
  const diff = diffTopic(desired, current);
  if (diff.create) {
    await ctx.cluster.createTopics([diff.create]);
    return [{ kind: "topic.created", entityType: "DataProduct", entityId: product.id, resource: `topic:${name}`, detail: { partitions: 1, configs: desired.configs, dlq: true } }];
  }
  // Configs only: a DLQ someone grew keeps its partitions.
  if (Object.keys(diff.setConfigs).length === 0) return [];
  return applyTopicDiff(ctx, product.id, name, { ...diff, growPartitionsTo: null, partitionsAboveCatalog: null });
}

async function applyTopicDiff(ctx: ReconcileContext, productId: string, topic: string, diff: ReturnType<typeof diffTopic>): Promise<Change[]> {
  const changes: Change[] = [];
  const resource = `topic:${topic}`;
  if (diff.growPartitionsTo !== null) {
    await ctx.cluster.createPartitions(topic, diff.growPartitionsTo);
    changes.push({ kind: "topic.partitions.increased", entityType: "DataProduct", entityId: productId, resource, detail: { to: diff.growPartitionsTo } });
  }
  if (Object.keys(diff.setConfigs).length > 0) {
    await ctx.cluster.setTopicConfigs(topic, diff.setConfigs);
    changes.push({ kind: "topic.configs.set", entityType: "DataProduct", entityId: productId, resource, detail: { set: diff.setConfigs, was: diff.previousConfigs } });
  }
  if (diff.partitionsAboveCatalog) {
    // Kafka cannot remove partitions; say so instead of failing forever.
    changes.push({ kind: "topic.partitions.above-catalog", entityType: "DataProduct", entityId: productId, resource, detail: diff.partitionsAboveCatalog });
  }
  return changes;
}

// ---------------------------------------------------------------------------
// Credentials

/** Locks the account row for the rest of the transaction (see the file comment). */
async function lockAccount(tx: Tx, serviceAccountId: string) {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ${serviceAccountId} FOR UPDATE`;
  if (rows.length === 0) throw new Error(`service account ${serviceAccountId} does not exist`);
  return tx.serviceAccount.findUniqueOrThrow({ where: { id: serviceAccountId }, omit: { secretHash: false } });
}

const LOCKED_WORK = { isolationLevel: "ReadCommitted" as const, timeout: 60_000, maxWait: 15_000 };

export const CREDENTIAL_MECHANISM = "SCRAM-SHA-512" as const;

/**
 * Makes sure the account has SCRAM-SHA-512 credentials on the cluster that
 * match the catalog. Issues a new password when the catalog has none, when the
 * user is missing on the cluster (drift: a deleted user cannot be restored
 * without the old password, which we do not keep), or when `rotateIssuedBefore`
 * is later than the current credential. The broker is written first: a crash
 * before the catalog write leaves the catalog without a hash, so the next
 * attempt issues again and overwrites — never a catalog hash the cluster lacks.
 */
export async function ensureCredentials(ctx: ReconcileContext, serviceAccountId: string, options: { rotateIssuedBefore?: Date } = {}): Promise<Change[]> {
  return ctx.db.$transaction(async (tx) => {
    const account = await lockAccount(tx, serviceAccountId);
    await assertOwnedPrincipal(tx, ctx.platformPrincipals ?? [], account);
    const users = await ctx.cluster.describeScramUsers([account.name]);
    const present = users.get(account.name)?.includes(CREDENTIAL_MECHANISM) ?? false;
    const rotate = options.rotateIssuedBefore !== undefined && (account.secretIssuedAt === null || account.secretIssuedAt < options.rotateIssuedBefore);
    // The account's quota class goes with its user (reconcile/quotas.ts).
    const quotaChanges = await reconcileUserQuotas(tx, ctx.cluster, [account]);
    if (account.secretHash && present && !rotate) return quotaChanges;
    const reason = rotate ? "rotation requested" : account.secretHash ? "user missing on the cluster" : "first issue";
    const password = generatePassword();
    // One salted credential for every environment: registered clusters get the same one (environment-credentials.ts).
    const { credential, sealed } = sealedScramCredential(ctx.secretsKey, account.id, password);
    await ctx.cluster.upsertScramCredential(account.name, CREDENTIAL_MECHANISM, credential);
    // A derived product's job account: sealed for the worker, never offered for pickup (derived-grants.ts).
    const job = await sealJobPassword(tx, ctx.secretsKey, account.id, password);
    await tx.serviceAccount.update({
      where: { id: account.id },
      data: {
        secretHash: await hashPassword(password),
        secretIssuedAt: new Date(),
        secretCiphertext: job ? null : encryptSecret(ctx.secretsKey, password, account.id),
        scramSealed: sealed,
      },
    });
    const kind = account.secretHash ? "credentials.reissued" : "credentials.issued";
    const detail = { mechanism: CREDENTIAL_MECHANISM, principal: `User:${account.name}`, reason };
    await auditAsWorker(tx, `serviceAccount.${kind}`, "ServiceAccount", account.id, detail);
    ctx.log.info("issued SCRAM credentials", { account: account.name, reason });
    return [{ kind, entityType: "ServiceAccount", entityId: account.id, resource: `user:${account.name}`, detail } satisfies Change, ...quotaChanges];
  }, LOCKED_WORK);
}

// ---------------------------------------------------------------------------
// ACLs

/** Everything the catalog grants one principal, read in the caller's transaction. */
export async function desiredBindingsFor(tx: Db | Tx, account: { id: string; name: string; domainId: string; isProducer: boolean }): Promise<AclBinding[]> {
  const principal = `User:${account.name}`;
  const out: AclBinding[] = [];
  if (account.isProducer) {
    const products = await tx.dataProduct.findMany({
      where: { domainId: account.domainId, status: { in: [...LIVE_PRODUCT_STATUSES] } },
      select: { topicName: true, ...DLQ_RULE_SELECT },
      orderBy: { topicName: "asc" },
    });
    const { topics, dlqs } = producedTopics(products.map((p) => ({ topicName: p.topicName, dlq: p.qualityRules.length > 0 })));
    out.push(...producerBindings(principal, topics), ...dlqReadBindings(principal, consumerGroupPrefix(account.name), dlqs));
  }
  const subscriptions = await tx.subscription.findMany({
    where: { serviceAccountId: account.id, environment: null, status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] }, product: { status: { in: [...LIVE_PRODUCT_STATUSES] } } },
    select: { product: { select: { topicName: true } } },
  });
  const topics = [...new Set(subscriptions.map((s) => s.product.topicName))].sort();
  out.push(...consumerBindings(principal, consumerGroupPrefix(account.name), topics));
  // A derived product's job account (derived-grants.ts).
  out.push(...(await derivedJobBindings(tx, [account])).bindings);
  return out;
}

/**
 * Which of these topic names are catalog topics (products that ever reached
 * the cluster). Asked for the topics of a principal's actual bindings only:
 * reading every product's topic per reconcile made each grant O(catalog).
 */
export async function catalogTopicsAmong(tx: Db | Tx, names: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(names)];
  const out = new Set<string>();
  for (let i = 0; i < unique.length; i += 5_000) {
    const rows = await tx.dataProduct.findMany({ where: { topicName: { in: unique.slice(i, i + 5_000) }, status: { notIn: ["DRAFT", "IN_REVIEW", "REJECTED"] } }, select: { topicName: true } });
    for (const r of rows) out.add(r.topicName);
  }
  // A product's dead-letter topic `<topic>.dlq` is the catalog's as its topic is (its grants go with the last DLQ rule).
  const dlqs = unique.filter((n) => n.endsWith(DLQ_SUFFIX) && !out.has(n));
  if (dlqs.length > 0) {
    const bases = new Map(dlqs.map((n) => [n.slice(0, -DLQ_SUFFIX.length), n]));
    const owned = await catalogTopicsAmong(tx, [...bases.keys()]);
    for (const [base, dlq] of bases) if (owned.has(base)) out.add(dlq);
  }
  return out;
}

/** The catalog's claim over one principal's bindings (see isOwned). */
async function ownershipFor(tx: Db | Tx, account: { name: string }, actual: readonly AclBinding[]): Promise<Ownership> {
  return {
    principals: new Set([`User:${account.name}`]),
    topics: await catalogTopicsAmong(tx, actual.filter((b) => b.resourceType === "TOPIC").map((b) => b.resourceName)),
    groupPrefixOf: new Map([[`User:${account.name}`, consumerGroupPrefix(account.name)]]),
  };
}

/** Brings one principal's ACLs to exactly what the catalog grants it. */
export async function reconcilePrincipalAcls(ctx: ReconcileContext, serviceAccountId: string): Promise<Change[]> {
  return ctx.db.$transaction(async (tx) => {
    const account = await lockAccount(tx, serviceAccountId);
    await assertOwnedPrincipal(tx, ctx.platformPrincipals ?? [], account);
    const principal = `User:${account.name}`;
    const desired = await desiredBindingsFor(tx, account);
    const actual = await ctx.cluster.describeAcls([principal]);
    const diff = diffAcls(desired, actual, await ownershipFor(tx, account, actual));
    // Remove before adding: a revoke must never leave a window with both.
    await ctx.cluster.deleteAcls(diff.delete);
    await ctx.cluster.createAcls(diff.create);
    const describe = (b: AclBinding) => `${b.operation} on ${b.resourceType} ${b.patternType === "PREFIXED" ? `${b.resourceName}*` : b.resourceName}`;
    return [
      ...diff.delete.map((b): Change => ({ kind: "acl.deleted", entityType: "ServiceAccount", entityId: account.id, resource: `acl:${principal}`, detail: { acl: describe(b), binding: b } })),
      ...diff.create.map((b): Change => ({ kind: "acl.created", entityType: "ServiceAccount", entityId: account.id, resource: `acl:${principal}`, detail: { acl: describe(b), binding: b } })),
    ];
  }, LOCKED_WORK);
}

/** Service account id for a Kafka principal `User:<name>`. */
export async function accountIdForPrincipal(db: Db, principal: string): Promise<string> {
  const name = principal.startsWith("User:") ? principal.slice(5) : principal;
  const account = await db.serviceAccount.findUnique({ where: { name }, select: { id: true } });
  if (!account) throw new Error(`no service account named ${name} (principal ${principal})`);
  return account.id;
}
