/*
 * One handler per task kind. Each one calls the per-entity reconcile functions
 * with what the catalog says *now* (the payload only names the entity): a task
 * retried an hour later applies the current decision, and a grant task for a
 * subscription that was revoked meanwhile grants nothing.
 */
import { z } from "zod";
import { TASK_KINDS } from "@kappa/catalog";
import { NonRetryableError } from "../errors.ts";
import { accountIdForPrincipal, ensureCredentials, reconcilePrincipalAcls, reconcileProductTopic, type Change, type ReconcileContext } from "../reconcile/entities.ts";
import { reconcileGrants } from "../reconcile/grants.ts";
import { assertOwnedPrincipal } from "../reconcile/principal-guard.ts";
import { reconcileQuotasOf } from "../reconcile/quotas.ts";
import { redriveDeadLetters } from "../redrive/redrive-dead-letters.ts";
import { applyReplay } from "../replay/apply-replay.ts";
import { inferTopicSchema } from "../sampling/infer-topic-schema.ts";
import type { LeasedTask } from "./runner.ts";

export { NonRetryableError } from "../errors.ts";

/** Task kinds the worker owns end to end; defined with the others in the catalog. */
export const ROTATE_CREDENTIALS = TASK_KINDS.ROTATE_CREDENTIALS;
export const RETIRE_PRODUCT = TASK_KINDS.RETIRE_PRODUCT;

const ensureAccountPayload = z.object({ serviceAccountId: z.string().min(1) });
const producerAclPayload = z.object({ principal: z.string().startsWith("User:") });
/** Only LITERAL bindings on exactly the claimed topic: a PREFIXED or `*` binding also covers other topics. */
const claimedAclsPayload = z.object({
  topic: z.string().min(1),
  bindings: z.array(
    z.object({
      resourceType: z.literal("TOPIC"),
      resourceName: z.string(),
      patternType: z.literal("LITERAL"),
      principal: z.string(),
      host: z.string(),
      operation: z.enum(["ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE"]),
      permission: z.enum(["ALLOW", "DENY"]),
    }),
  ),
});
const rotatePayload = z.object({ serviceAccountId: z.string().min(1), requestedAt: z.iso.datetime() });

function parse<T>(schema: z.ZodType<T>, task: LeasedTask): T {
  const result = schema.safeParse(task.payload);
  if (!result.success) throw new NonRetryableError(`malformed ${task.kind} payload: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return result.data;
}

async function subscriptionAccount(ctx: ReconcileContext, subscriptionId: string): Promise<string> {
  return (await subscriptionGrant(ctx, subscriptionId)).accountId;
}

async function subscriptionGrant(ctx: ReconcileContext, subscriptionId: string): Promise<{ accountId: string; topic: string }> {
  const sub = await ctx.db.subscription.findUnique({ where: { id: subscriptionId }, select: { serviceAccountId: true, product: { select: { topicName: true } } } });
  if (!sub) throw new NonRetryableError(`subscription ${subscriptionId} does not exist`);
  return { accountId: sub.serviceAccountId, topic: sub.product.topicName };
}

async function productTopic(ctx: ReconcileContext, productId: string): Promise<string> {
  const product = await ctx.db.dataProduct.findUnique({ where: { id: productId }, select: { topicName: true } });
  if (!product) throw new NonRetryableError(`product ${productId} does not exist`);
  return product.topicName;
}

/** One account's grant on one topic (see reconcile/grants.ts). */
async function grant(ctx: ReconcileContext, accountId: string, topic: string): Promise<Change[]> {
  return (await reconcileGrants(ctx, new Map([[accountId, new Set([topic])]]))).get(accountId) ?? [];
}

/**
 * A product's credential and producer-ACL steps act on the producer account
 * of that product's domain and nothing else: a task naming another account
 * (a squatted name from before the naming rules) is refused, not followed.
 */
async function assertProducerOfProduct(ctx: ReconcileContext, task: LeasedTask, accountId: string): Promise<string> {
  if (task.entityType !== "DataProduct") return accountId;
  const [product, account] = await Promise.all([
    ctx.db.dataProduct.findUnique({ where: { id: task.entityId }, select: { domainId: true } }),
    ctx.db.serviceAccount.findUnique({ where: { id: accountId }, select: { name: true, domainId: true, isProducer: true } }),
  ]);
  if (!product) throw new NonRetryableError(`product ${task.entityId} does not exist`);
  if (!account || !account.isProducer || account.domainId !== product.domainId) {
    throw new NonRetryableError(`Refusing ${task.kind}: service account ${account?.name ?? accountId} is not the producer account of the product's domain; nothing was changed on the cluster.`);
  }
  return accountId;
}

export async function runTaskHandler(ctx: ReconcileContext, task: LeasedTask): Promise<Change[]> {
  switch (task.kind) {
    case "CREATE_TOPIC":
      return reconcileProductTopic(ctx, task.entityId);
    case "ENSURE_SERVICE_ACCOUNT":
      return ensureCredentials(ctx, await assertProducerOfProduct(ctx, task, parse(ensureAccountPayload, task).serviceAccountId));
    case "GRANT_PRODUCER_ACL":
      return grant(ctx, await assertProducerOfProduct(ctx, task, await accountIdForPrincipal(ctx.db, parse(producerAclPayload, task).principal)), await productTopic(ctx, task.entityId));
    case "GRANT_SUBSCRIPTION_ACL": {
      const { accountId, topic } = await subscriptionGrant(ctx, task.entityId);
      // The catalog queues no separate step for a subscriber's credentials:
      // the grant is useless without them, so it issues them first.
      const issued = await ensureCredentials(ctx, accountId);
      return [...issued, ...(await grant(ctx, accountId, topic))];
    }
    case "REVOKE_SUBSCRIPTION_ACL": {
      const accountId = await subscriptionAccount(ctx, task.entityId);
      // The quota goes when this was the account's last live use (reconcile/quotas.ts).
      return [...(await reconcilePrincipalAcls(ctx, accountId)), ...((await reconcileQuotasOf(ctx, [accountId])).get(accountId) ?? [])];
    }
    case TASK_KINDS.APPLY_QUOTA_CLASS: {
      // A product's class concerns its domain's producer account; a subscription's, its account.
      let accountId: string | undefined;
      if (task.entityType === "DataProduct") {
        const product = await ctx.db.dataProduct.findUnique({ where: { id: task.entityId }, select: { domainId: true } });
        if (!product) throw new NonRetryableError(`product ${task.entityId} does not exist`);
        accountId = (await ctx.db.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true }, select: { id: true } }))?.id;
      } else if (task.entityType === "Subscription") accountId = await subscriptionAccount(ctx, task.entityId);
      else throw new NonRetryableError(`${task.kind} on a ${task.entityType}`);
      if (!accountId) return [];
      const account = await ctx.db.serviceAccount.findUniqueOrThrow({ where: { id: accountId }, select: { id: true, name: true, domainId: true, isProducer: true } });
      await assertOwnedPrincipal(ctx.db, ctx.platformPrincipals ?? [], account);
      return (await reconcileQuotasOf(ctx, [accountId])).get(accountId) ?? [];
    }
    case RETIRE_PRODUCT: {
      const product = await ctx.db.dataProduct.findUnique({ where: { id: task.entityId }, select: { domainId: true, status: true } });
      if (!product) throw new NonRetryableError(`product ${task.entityId} does not exist`);
      const accounts = new Set<string>();
      const producer = await ctx.db.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true }, select: { id: true } });
      if (producer) accounts.add(producer.id);
      for (const s of await ctx.db.subscription.findMany({ where: { productId: task.entityId }, select: { serviceAccountId: true } })) accounts.add(s.serviceAccountId);
      // Flink job accounts: the retired product's own job, and the jobs of derived products that read it (derived-grants.ts).
      const readers = await ctx.db.productInput.findMany({ where: { inputProductId: task.entityId }, select: { productId: true } });
      const jobs = await ctx.db.derivedProduct.findMany({ where: { productId: { in: [task.entityId, ...readers.map((r) => r.productId)] }, serviceAccountId: { not: null } }, select: { serviceAccountId: true } });
      for (const j of jobs) accounts.add(j.serviceAccountId!);
      // Grants first, so nobody holds access to a topic that is about to go.
      const changes: Change[] = [];
      for (const id of accounts) changes.push(...(await reconcilePrincipalAcls(ctx, id)));
      // Accounts left with no live use lose their quota.
      for (const c of (await reconcileQuotasOf(ctx, [...accounts])).values()) changes.push(...c);
      changes.push(...(await reconcileProductTopic(ctx, task.entityId)));
      return changes;
    }
    case TASK_KINDS.RESET_CONSUMER_GROUP_OFFSETS:
      return applyReplay(ctx, task.entityId);
    case TASK_KINDS.REMOVE_CLAIMED_ACLS: {
      const payload = parse(claimedAclsPayload, task);
      const stray = payload.bindings.find((b) => b.resourceName !== payload.topic);
      if (stray) throw new NonRetryableError(`binding on ${stray.resourceName} is not on the claimed topic ${payload.topic}`);
      // Exact bindings, as found at claim time and chosen by the reviewer; one already gone is fine.
      await ctx.cluster.deleteAcls(payload.bindings);
      return payload.bindings.map((b): Change => ({ kind: "acl.deleted", entityType: "DataProduct", entityId: task.entityId, resource: `topic:${payload.topic}`, detail: { binding: b, reason: "claim review" } }));
    }
    case TASK_KINDS.REDRIVE_DEAD_LETTERS:
      return redriveDeadLetters(ctx, task.entityId);
    case TASK_KINDS.INFER_TOPIC_SCHEMA:
      return inferTopicSchema(ctx, parse(z.object({ topic: z.string().min(1) }), task).topic);
    case ROTATE_CREDENTIALS: {
      const payload = parse(rotatePayload, task);
      return ensureCredentials(ctx, payload.serviceAccountId, { rotateIssuedBefore: new Date(payload.requestedAt) });
    }
    default:
      throw new NonRetryableError(`unknown task kind ${task.kind}`);
  }
}

export interface BatchPlan {
  topics: LeasedTask[];
  credentials: LeasedTask[];
  /** Grant tasks: the account's bindings on the task's topic (reconcile/grants.ts). */
  grants: LeasedTask[];
  /** Revokes: all of the principal's bindings. */
  acls: LeasedTask[];
  /** Task id → service account id, for credential and ACL tasks. */
  accountOf: Map<string, string>;
  /** Task id → topic, for grant tasks. */
  topicOf: Map<string, string>;
  /** Tasks that run through runTaskHandler one by one (rotations, unknown kinds, unresolvable payloads). */
  single: LeasedTask[];
}

/** Groups a batch by what it reconciles, resolving subscriptions and principals to accounts in two queries. */
export async function planBatch(ctx: ReconcileContext, tasks: LeasedTask[]): Promise<BatchPlan> {
  const plan: BatchPlan = { topics: [], credentials: [], grants: [], acls: [], accountOf: new Map(), topicOf: new Map(), single: [] };
  const subscriptionIds = tasks.filter((t) => t.kind === "GRANT_SUBSCRIPTION_ACL" || t.kind === "REVOKE_SUBSCRIPTION_ACL").map((t) => t.entityId);
  const principalNames = tasks
    .filter((t) => t.kind === "GRANT_PRODUCER_ACL")
    .map((t) => producerAclPayload.safeParse(t.payload))
    .flatMap((r) => (r.success ? [r.data.principal.slice("User:".length)] : []));
  const ensureIds = tasks
    .filter((t) => t.kind === "ENSURE_SERVICE_ACCOUNT")
    .map((t) => ensureAccountPayload.safeParse(t.payload))
    .flatMap((r) => (r.success ? [r.data.serviceAccountId] : []));
  const productIds = tasks.filter((t) => t.entityType === "DataProduct").map((t) => t.entityId);
  const [subs, accounts, products] = await Promise.all([
    subscriptionIds.length > 0 ? ctx.db.subscription.findMany({ where: { id: { in: subscriptionIds } }, select: { id: true, serviceAccountId: true, product: { select: { topicName: true } } } }) : [],
    principalNames.length > 0 || ensureIds.length > 0
      ? ctx.db.serviceAccount.findMany({ where: { OR: [{ name: { in: principalNames } }, { id: { in: ensureIds } }] }, select: { id: true, name: true, domainId: true, isProducer: true } })
      : [],
    productIds.length > 0 ? ctx.db.dataProduct.findMany({ where: { id: { in: productIds } }, select: { id: true, domainId: true, topicName: true } }) : [],
  ]);
  const accountOfSubscription = new Map(subs.map((s) => [s.id, s.serviceAccountId]));
  const topicOfSubscription = new Map(subs.map((s) => [s.id, s.product.topicName]));
  const topicOfProduct = new Map(products.map((p) => [p.id, p.topicName]));
  const accountByName = new Map(accounts.map((a) => [a.name, a.id]));
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const domainOfProduct = new Map(products.map((p) => [p.id, p.domainId]));
  // A product step on anything but its domain's producer runs alone, where runTaskHandler refuses it.
  const producerOfTask = (t: LeasedTask, accountId: string) => {
    if (t.entityType !== "DataProduct") return true;
    const a = accountById.get(accountId);
    return a !== undefined && a.isProducer && a.domainId === domainOfProduct.get(t.entityId);
  };
  for (const t of tasks) {
    switch (t.kind) {
      case "CREATE_TOPIC":
        // A product that is gone runs alone, where the handler fails it for good (the batch would skip it and call it done).
        if (!topicOfProduct.has(t.entityId)) plan.single.push(t);
        else plan.topics.push(t);
        break;
      case "ENSURE_SERVICE_ACCOUNT": {
        const p = ensureAccountPayload.safeParse(t.payload);
        if (!p.success || !producerOfTask(t, p.data.serviceAccountId)) plan.single.push(t);
        else {
          plan.accountOf.set(t.id, p.data.serviceAccountId);
          plan.credentials.push(t);
        }
        break;
      }
      case "GRANT_PRODUCER_ACL": {
        const p = producerAclPayload.safeParse(t.payload);
        const id = p.success ? accountByName.get(p.data.principal.slice("User:".length)) : undefined;
        const topic = topicOfProduct.get(t.entityId);
        if (!id || !topic || !producerOfTask(t, id)) plan.single.push(t);
        else {
          plan.accountOf.set(t.id, id);
          plan.topicOf.set(t.id, topic);
          plan.grants.push(t);
        }
        break;
      }
      case "GRANT_SUBSCRIPTION_ACL":
      case "REVOKE_SUBSCRIPTION_ACL": {
        const id = accountOfSubscription.get(t.entityId);
        const topic = topicOfSubscription.get(t.entityId);
        if (!id || !topic) plan.single.push(t);
        else {
          plan.accountOf.set(t.id, id);
          if (t.kind === "GRANT_SUBSCRIPTION_ACL") {
            plan.credentials.push(t);
            plan.topicOf.set(t.id, topic);
            plan.grants.push(t);
          } else plan.acls.push(t);
        }
        break;
      }
      default:
        plan.single.push(t);
    }
  }
  return plan;
}
