/*
 * Choosing a client quota class (issue 33). A product's owners choose the class
 * of its producer account (setProductQuotaClass); a subscription asks for one
 * when it is requested (requestSubscription). A class no larger than the
 * policy's default is in force at once; a larger one waits as
 * `quotaClassRequested`, with its reason, in governance's review queue
 * (reviewQueue `quotaClasses`) until a reviewer other than the person who
 * asked approves it (approveQuotaClass) or rejects it (rejectQuotaClass) —
 * the way a subscription's need for personal data is granted. Every step is
 * audited; a class in force queues the worker's APPLY_QUOTA_CLASS step.
 */
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { activePolicy } from "../policies/store.ts";
import { TASK_KINDS } from "../tasks.ts";
import { LIMITS, rejectQuotaClassInput, setProductQuotaClassInput } from "../validation.ts";
import { isLargerThanDefault, QUOTA_LIVE_PRODUCT_STATUSES, quotaClassesFromPolicy } from "./quota-classes.ts";

export interface QuotaClassChoice {
  /** The class in force from now on (unchanged: undefined). */
  quotaClass?: string | null;
  /** A larger class waiting for governance, with its reason and who asked; null clears a waiting one. */
  quotaClassRequested: string | null;
  quotaClassReason: string | null;
  quotaClassRequestedById: string | null;
}

/**
 * What choosing `name` means under the policy in force: a class at most the
 * default's is in force at once (a waiting larger one is withdrawn); a larger
 * one waits for governance and needs a reason. An unknown class is refused on
 * `field`.
 */
export async function quotaClassChoice(tx: Tx | Db, actor: Actor, name: string, reason: string | undefined, field: { quotaClass: string; reason: string }): Promise<QuotaClassChoice> {
  const classes = quotaClassesFromPolicy((await activePolicy(tx)).document);
  if (!Object.hasOwn(classes.classes, name)) {
    throw new ValidationError("Some fields need attention.", { [field.quotaClass]: [`"${name}" is not a quota class of the policy in force; choose one of ${Object.keys(classes.classes).sort().join(", ")}.`] });
  }
  if (!isLargerThanDefault(classes, name)) return { quotaClass: name, quotaClassRequested: null, quotaClassReason: null, quotaClassRequestedById: null };
  const why = reason?.trim() ?? "";
  if (why.length < LIMITS.reasonMin) {
    throw new ValidationError("Some fields need attention.", { [field.reason]: [`"${name}" is larger than the default class "${classes.default}": say why it is needed (at least ${LIMITS.reasonMin} characters); governance decides.`] });
  }
  return { quotaClassRequested: name, quotaClassReason: why, quotaClassRequestedById: actor.id };
}

/** Queues the worker's step that applies the quota now in force to the account(s) the entity concerns (nothing for what is not live yet: its provisioning applies it). */
export async function enqueueQuotaClass(tx: Tx, entityType: "DataProduct" | "Subscription", entityId: string): Promise<void> {
  const live =
    entityType === "DataProduct"
      ? await tx.dataProduct.count({ where: { id: entityId, status: { in: [...QUOTA_LIVE_PRODUCT_STATUSES] } } })
      : await tx.subscription.count({ where: { id: entityId, status: { in: ["APPROVED", "ACTIVE"] } } });
  if (live === 0) return;
  const last = await tx.provisioningTask.aggregate({ where: { entityType, entityId }, _max: { step: true } });
  await tx.provisioningTask.create({ data: { kind: TASK_KINDS.APPLY_QUOTA_CLASS, payload: {}, entityType, entityId, step: (last._max.step ?? 0) + 1 } });
}

/** An owner of the product's domain chooses the quota class of its producer account. */
export async function setProductQuotaClass(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(setProductQuotaClassInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    await tx.$queryRaw`SELECT id FROM "DataProduct" WHERE id = ${productId} FOR UPDATE`;
    const product = await tx.dataProduct.findUnique({ where: { id: productId } });
    if (!product) throw new NotFoundError("Data product", productId);
    if (!canInDomain(actor, "product:update", product.domainId)) throw new ForbiddenError("Only owners of the product's domain choose its quota class.");
    if (product.status === "RETIRED" || product.status === "REJECTED") throw new ConflictError(`"${product.name}" is ${product.status}; its quota class no longer matters.`, "INVALID_TRANSITION");
    const choice = await quotaClassChoice(tx, actor, input.quotaClass, input.reason, { quotaClass: "quotaClass", reason: "reason" });
    const updated = await tx.dataProduct.update({ where: { id: productId }, data: choice });
    if (choice.quotaClassRequested) {
      await recordAudit(tx, actor, "product.quota-class.requested", "DataProduct", productId, { product: product.topicName, class: choice.quotaClassRequested, inForce: product.quotaClass, reason: choice.quotaClassReason });
    } else {
      await recordAudit(tx, actor, "product.quota-class.set", "DataProduct", productId, { product: product.topicName, class: input.quotaClass, before: product.quotaClass, ...(product.quotaClassRequested ? { withdrawn: product.quotaClassRequested } : {}) });
      if (product.quotaClass !== input.quotaClass) await enqueueQuotaClass(tx, "DataProduct", productId);
    }
    return updated;
  });
}

export interface QuotaClassDecision {
  entityType: "DataProduct" | "Subscription";
  id: string;
}

async function lockPending(tx: Tx, actor: Actor, decision: QuotaClassDecision) {
  if (!hasGlobal(actor, "product:review") && !hasGlobal(actor, "subscription:decide")) throw new ForbiddenError("Only governance reviewers decide on a quota class larger than the default.");
  if (decision.entityType === "DataProduct") {
    await tx.$queryRaw`SELECT id FROM "DataProduct" WHERE id = ${decision.id} FOR UPDATE`;
    const p = await tx.dataProduct.findUnique({ where: { id: decision.id } });
    if (!p) throw new NotFoundError("Data product", decision.id);
    return { row: p, label: p.topicName, audit: "product" as const };
  }
  await tx.$queryRaw`SELECT id FROM "Subscription" WHERE id = ${decision.id} FOR UPDATE`;
  const s = await tx.subscription.findUnique({ where: { id: decision.id }, include: { product: { select: { topicName: true } }, serviceAccount: { select: { name: true } } } });
  if (!s) throw new NotFoundError("Subscription", decision.id);
  return { row: s, label: `${s.product.topicName} for User:${s.serviceAccount.name}`, audit: "subscription" as const };
}

/** Governance grants a waiting larger class; four eyes: never the person who asked for it. */
export async function approveQuotaClass(db: Db, acting: ActingUser, decision: QuotaClassDecision) {
  return inTransaction(db, acting, async (tx, actor) => {
    const { row, label, audit } = await lockPending(tx, actor, decision);
    if (!row.quotaClassRequested) throw new ConflictError("No quota class waits for a decision here.", "QUOTA_CLASS_NOT_REQUESTED");
    assertFourEyes(actor, { requestedById: row.quotaClassRequestedById }, "this quota class request");
    const granted = await grantRequestedQuotaClass(tx, actor, decision, row, label, audit);
    return granted;
  });
}

/** Sets the waiting class in force, audits it and queues the worker's step (approveQuotaClass, and approveSubscription when governance approves both at once). */
export async function grantRequestedQuotaClass(
  tx: Tx,
  actor: Actor,
  decision: QuotaClassDecision,
  row: { quotaClass: string | null; quotaClassRequested: string | null; quotaClassReason: string | null; quotaClassRequestedById: string | null },
  label: string,
  audit: "product" | "subscription",
) {
  const name = row.quotaClassRequested!;
  const classes = quotaClassesFromPolicy((await activePolicy(tx)).document);
  if (!Object.hasOwn(classes.classes, name)) throw new ConflictError(`"${name}" is no longer a quota class of the policy in force; reject the request.`, "QUOTA_CLASS_UNKNOWN");
  const data = { quotaClass: name, quotaClassRequested: null, quotaClassReason: null, quotaClassRequestedById: null };
  const updated = decision.entityType === "DataProduct" ? await tx.dataProduct.update({ where: { id: decision.id }, data }) : await tx.subscription.update({ where: { id: decision.id }, data });
  await recordAudit(tx, actor, `${audit}.quota-class.approved`, decision.entityType, decision.id, { entity: label, class: name, before: row.quotaClass, reason: row.quotaClassReason, requestedById: row.quotaClassRequestedById });
  await enqueueQuotaClass(tx, decision.entityType, decision.id);
  return updated;
}

/** Governance refuses a waiting larger class, with a reason; the class in force stays. */
export async function rejectQuotaClass(db: Db, acting: ActingUser, decision: QuotaClassDecision, rawInput: unknown) {
  const why = parseInput(rejectQuotaClassInput, rawInput).reason;
  return inTransaction(db, acting, async (tx, actor) => {
    const { row, label, audit } = await lockPending(tx, actor, decision);
    if (!row.quotaClassRequested) throw new ConflictError("No quota class waits for a decision here.", "QUOTA_CLASS_NOT_REQUESTED");
    const data = { quotaClassRequested: null, quotaClassReason: null, quotaClassRequestedById: null };
    const updated = decision.entityType === "DataProduct" ? await tx.dataProduct.update({ where: { id: decision.id }, data }) : await tx.subscription.update({ where: { id: decision.id }, data });
    await recordAudit(tx, actor, `${audit}.quota-class.rejected`, decision.entityType, decision.id, { entity: label, class: row.quotaClassRequested, inForce: row.quotaClass, reason: why });
    return updated;
  });
}
