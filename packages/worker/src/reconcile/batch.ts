/*
 * Batched forms of the per-entity reconcile functions, for the task runner
 * when it leases many tasks at once (a burst of approvals, a worker catching
 * up after an outage). Same rules, same locks, same results as
 * reconcileProductTopic / ensureCredentials / reconcilePrincipalAcls — only
 * the reads and Kafka requests are shared: one DescribeConfigs and one
 * CreateTopics for many topics, one transaction locking many accounts (in id
 * order, so two batches never deadlock) and one CreateAcls for all of them.
 */
import { consumerGroupPrefix, encryptSecret, generatePassword, hashPassword } from "@kappa/catalog";
import { groupBy } from "../group-by.ts";
import type { AclBinding, TopicDescription } from "../kafka/cluster.ts";
import { derivedJobBindings, sealJobPassword } from "./derived-grants.ts";
import {
  consumerBindings,
  diffAcls,
  diffTopic,
  GRANTED_SUBSCRIPTION_STATUSES,
  LIVE_PRODUCT_STATUSES,
  dlqReadBindings,
  DLQ_RULE_SELECT,
  producedTopics,
  producerBindings,
  topicDiffIsEmpty,
  topicSpecFor,
  type Ownership,
} from "./diff.ts";
import { catalogTopicsAmong, CREDENTIAL_MECHANISM, reconcileDlqTopic, reconcileProductTopic, WORKER_ACTOR, type Change, type ReconcileContext } from "./entities.ts";
import { loadPrincipalGuard, refusal } from "./principal-guard.ts";
import { sealedScramCredential } from "./scram-credential.ts";

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
  // Dead-letter topics of the products with a DLQ rule (issue 29): few, one by one.
  const withDlq = await ctx.db.dataQualityRule.findMany({ where: { productId: { in: live.map((p) => p.id) }, onFailure: "DLQ" }, select: { productId: true }, distinct: ["productId"] });
  for (const { productId } of withDlq) {
    const p = live.find((x) => x.id === productId);
    if (p) out.set(p.id, [...(out.get(p.id) ?? []), ...(await reconcileDlqTopic(ctx, p))]);
  }
  return out;
}

/**
 * Credentials of many accounts: one describe; those that need credentials are
 * issued together (issueCredentialsMany). Issuing them one transaction and
 * one AlterUserScramCredentials at a time, while the other batches in flight
 * waited on the same accounts' locks, was most of a convergence's first minute.
 */
export async function ensureCredentialsMany(ctx: ReconcileContext, accountIds: string[]): Promise<Map<string, Change[]>> {
  const out = new Map<string, Change[]>(accountIds.map((id) => [id, []]));
  const accounts = await ctx.db.serviceAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, name: true, secretHash: true } });
  const users = await ctx.cluster.describeScramUsers(accounts.map((a) => a.name));
  const needing = accounts.filter((a) => a.secretHash === null || !(users.get(a.name)?.includes(CREDENTIAL_MECHANISM) ?? false));
  for (const [id, changes] of await issueCredentialsMany(ctx, needing.map((a) => a.id))) out.set(id, changes);
  return out;
}

/**
 * ensureCredentials for many accounts in one transaction: the rows locked in
 * id order (two batches never deadlock; a batch that waited finds the
 * credentials issued and does nothing), every principal checked by the guard
 * before anything is sent, the cluster re-described under the lock, then one
 * AlterUserScramCredentials for all of them before the catalog rows and one
 * audit event per account — the same order and audit as the single path, so a
 * crash between the two still leaves the catalog without a hash (issued again).
 */
async function issueCredentialsMany(ctx: ReconcileContext, accountIds: string[]): Promise<Map<string, Change[]>> {
  const out = new Map<string, Change[]>();
  const ids = [...new Set(accountIds)].sort();
  if (ids.length === 0) return out;
  return ctx.db.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ANY(${ids}) ORDER BY id FOR UPDATE`;
      if (locked.length !== ids.length) throw new Error(`service accounts missing: ${ids.filter((id) => !locked.some((l) => l.id === id)).join(", ")}`);
      const accounts = await tx.serviceAccount.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, domainId: true, isProducer: true, secretHash: true }, orderBy: { id: "asc" } });
      const guard = await loadPrincipalGuard(tx, ctx.platformPrincipals ?? []);
      for (const a of accounts) {
        const problem = guard(a);
        if (problem) throw refusal(a, problem);
      }
      const users = await ctx.cluster.describeScramUsers(accounts.map((a) => a.name));
      const issue = accounts
        .filter((a) => a.secretHash === null || !(users.get(a.name)?.includes(CREDENTIAL_MECHANISM) ?? false))
        .map((a) => {
          const password = generatePassword();
          // One salted credential for every environment, as ensureCredentials (scram-credential.ts).
          return { account: a, password, ...sealedScramCredential(ctx.secretsKey, a.id, password) };
        });
      if (issue.length === 0) return out;
      await ctx.cluster.upsertScramCredentials(issue.map(({ account, credential }) => ({ user: account.name, mechanism: CREDENTIAL_MECHANISM, credential })));
      const issuedAt = new Date();
      const hashes = await hashAll(issue.map(({ password }) => password));
      for (const [i, { account, password, sealed }] of issue.entries()) {
        // A derived product's job account: sealed for the worker, never offered for pickup (derived-grants.ts).
        const job = await sealJobPassword(tx, ctx.secretsKey, account.id, password);
        await tx.serviceAccount.update({
          where: { id: account.id },
          data: { secretHash: hashes[i], secretIssuedAt: issuedAt, secretCiphertext: job ? null : encryptSecret(ctx.secretsKey, password, account.id), scramSealed: sealed },
        });
      }
      const audits = issue.map(({ account }) => {
        const kind = account.secretHash ? "credentials.reissued" : "credentials.issued";
        const detail = { mechanism: CREDENTIAL_MECHANISM, principal: `User:${account.name}`, reason: account.secretHash ? "user missing on the cluster" : "first issue" };
        out.set(account.id, [{ kind, entityType: "ServiceAccount", entityId: account.id, resource: `user:${account.name}`, detail }]);
        return { actorId: null, actorEmail: WORKER_ACTOR, action: `serviceAccount.${kind}`, entityType: "ServiceAccount", entityId: account.id, data: detail };
      });
      await tx.auditEvent.createMany({ data: audits });
      ctx.log.info("issued SCRAM credentials", { accounts: issue.length });
      return out;
    },
    { isolationLevel: "ReadCommitted", timeout: 120_000, maxWait: 30_000 },
  );
}

/**
 * scrypt hashes of many passwords, HASH_CONCURRENCY at a time: each hash
 * holds 32 MiB (N = 2^15, r = 8) on a libuv thread, and a batch of 50
 * accounts hashed all at once kept the whole thread pool — 128 MiB of the
 * worker's RSS — busy with them.
 */
const HASH_CONCURRENCY = 2;
async function hashAll(passwords: readonly string[]): Promise<string[]> {
  const out: string[] = new Array<string>(passwords.length);
  let next = 0;
  const run = async (): Promise<void> => {
    while (next < passwords.length) {
      const i = next++;
      out[i] = await hashPassword(passwords[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASH_CONCURRENCY, passwords.length) }, run));
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
      const [produced, subscribed, jobs] = await Promise.all([
        tx.dataProduct.findMany({ where: { domainId: { in: producerDomains }, status: { in: [...LIVE_PRODUCT_STATUSES] } }, select: { domainId: true, topicName: true, ...DLQ_RULE_SELECT } }),
        tx.subscription.findMany({
          where: { serviceAccountId: { in: ids }, environment: null, status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] }, product: { status: { in: [...LIVE_PRODUCT_STATUSES] } } },
          select: { serviceAccountId: true, product: { select: { topicName: true } } },
        }),
        // Derived products' job accounts (derived-grants.ts).
        derivedJobBindings(tx, accounts),
      ]);
      const topicsOfDomain = groupBy(produced, (p) => p.domainId, (p) => ({ topicName: p.topicName, dlq: p.qualityRules.length > 0 }));
      const topicsOfAccount = groupBy(subscribed, (s) => s.serviceAccountId, (s) => s.product.topicName);
      const desired: AclBinding[] = [...jobs.bindings];
      for (const a of accounts) {
        const principal = `User:${a.name}`;
        if (a.isProducer) {
          const { topics, dlqs } = producedTopics(topicsOfDomain.get(a.domainId) ?? []);
          desired.push(...producerBindings(principal, topics), ...dlqReadBindings(principal, consumerGroupPrefix(a.name), dlqs));
        }
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
