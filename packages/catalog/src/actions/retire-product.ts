import type { DataProduct } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { lockProduct, moveProductStatus, requireDomainPermission } from "../product-access.ts";
import { shredProductDeks } from "../schema-registry/dek-registry.ts";
import { TASK_KINDS } from "../tasks.ts";
import { nextProductStatus } from "../transitions.ts";
import { retireProductInput } from "../validation.ts";

/*
 * Retirement ends a deprecated product: every subscription still holding a
 * grant is revoked, pending requests are rejected, the product becomes
 * RETIRED, and one RETIRE_PRODUCT task has the worker remove every grant on
 * the topic (producer and subscribers) and delete or keep the topic per
 * WORKER_RETIRED_TOPICS. At the sunset the worker's scheduler calls
 * retireDueProducts; owners may retire early once no subscription is active.
 */

const SYSTEM = { id: null, email: "system" } as const;

async function retireLocked(tx: Tx, product: DataProduct, by: { id: string | null; email: string }, reason: string, trigger: "sunset" | "owner") {
  const to = nextProductStatus(product.status, "retire");
  const now = new Date();
  const granted = await tx.subscription.findMany({
    where: { productId: product.id, status: { in: ["APPROVED", "ACTIVE"] } },
    include: { serviceAccount: { select: { name: true } } },
  });
  const requested = await tx.subscription.findMany({ where: { productId: product.id, status: "REQUESTED" }, select: { id: true, consumingDomainId: true } });
  const subscriptionReason = trigger === "sunset" ? "The product reached its sunset and was retired." : `The product was retired: ${reason}`;
  if (granted.length > 0) {
    await tx.subscription.updateMany({ where: { id: { in: granted.map((s) => s.id) } }, data: { status: "REVOKED", decidedById: by.id, decidedAt: now, reason: subscriptionReason } });
  }
  if (requested.length > 0) {
    await tx.subscription.updateMany({ where: { id: { in: requested.map((s) => s.id) } }, data: { status: "REJECTED", decidedById: by.id, decidedAt: now, reason: subscriptionReason } });
  }
  const updated = await moveProductStatus(tx, product, to, { retiredAt: now });
  // Earlier steps that never finished would block the retirement step forever
  // (a step waits for every earlier one): retirement supersedes them.
  await tx.provisioningTask.updateMany({
    where: { entityType: "DataProduct", entityId: product.id, status: { in: ["PENDING", "FAILED"] } },
    data: { status: "DONE", completedAt: now, lastError: "Superseded: the product was retired." },
  });
  const last = await tx.provisioningTask.aggregate({ where: { entityType: "DataProduct", entityId: product.id }, _max: { step: true } });
  await tx.provisioningTask.create({
    data: { kind: TASK_KINDS.RETIRE_PRODUCT, payload: { topic: product.topicName }, entityType: "DataProduct", entityId: product.id, step: (last._max.step ?? 0) + 1 },
  });
  // Crypto-shredding (issue 29): the product's DEKs go with it — irreversibly, so nobody decrypts the encrypted fields
  // of the records left in the log or the remote tier afterwards.
  const destroyed = await shredProductDeks(tx, product.id);
  if (destroyed.length > 0) await recordAudit(tx, by, "product.keys-destroyed", "DataProduct", product.id, { trigger, deks: destroyed });
  const revoked = granted.map((s) => ({ subscriptionId: s.id, principal: `User:${s.serviceAccount.name}` }));
  await recordAudit(tx, by, "product.retired", "DataProduct", product.id, {
    from: product.status,
    to,
    trigger,
    reason,
    sunsetAt: product.sunsetAt?.toISOString() ?? null,
    revokedSubscriptions: revoked,
    rejectedRequests: requested.map((r) => r.id),
  });
  for (const s of granted) {
    await recordAudit(tx, by, "subscription.revoked", "Subscription", s.id, { from: s.status, to: "REVOKED", reason: subscriptionReason });
  }
  const subscriberDomains = [...new Set([...granted, ...requested].map((s) => s.consumingDomainId))];
  await notify(tx, {
    kind: "product.retired",
    title: `${product.name} was retired`,
    body:
      trigger === "sunset"
        ? `It reached its sunset; ${granted.length} subscription${granted.length === 1 ? "" : "s"} revoked and every grant on ${product.topicName} removed.`
        : `Retired early by its owners (${reason}).`,
    link: `/products/${product.id}`,
    entityType: "DataProduct",
    entityId: product.id,
    audience: { domainMembers: [product.domainId, ...subscriberDomains] },
    exclude: [by.id],
    data: { topic: product.topicName, trigger, revokedSubscriptions: granted.length },
  });
  return updated;
}

/** An owner retires a deprecated product before its sunset, once nobody holds access. */
export async function retireProduct(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { reason } = parseInput(retireProductInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:retire", product.domainId, "Only owners of the product's domain can retire it.");
    nextProductStatus(product.status, "retire");
    const active = await tx.subscription.count({ where: { productId, status: { in: ["APPROVED", "ACTIVE"] } } });
    if (active > 0) {
      throw new ConflictError(
        `${active} subscription${active === 1 ? " is" : "s are"} still active. Retire early once subscribers have moved on, or wait for the sunset, which revokes them.`,
        "ACTIVE_SUBSCRIPTIONS",
      );
    }
    return retireLocked(tx, product, actor, reason, "owner");
  });
}

/**
 * The sunset scheduler (the worker calls it on a timer): retires every
 * DEPRECATED product whose sunset has passed, each in its own transaction.
 * Safe to run from several workers at once: the row lock and the status check
 * let exactly one of them retire a product.
 */
export async function retireDueProducts(db: Db, now: Date = new Date(), limit = 50): Promise<string[]> {
  const due = await db.dataProduct.findMany({
    where: { status: "DEPRECATED", sunsetAt: { lte: now } },
    select: { id: true },
    orderBy: { sunsetAt: "asc" },
    take: limit,
  });
  const retired: string[] = [];
  for (const { id } of due) {
    const done = await db.$transaction(
      async (tx) => {
        const product = await lockProduct(tx, id);
        if (product.status !== "DEPRECATED" || !product.sunsetAt || product.sunsetAt > now) return false;
        await retireLocked(tx, product, SYSTEM, "sunset reached", "sunset");
        return true;
      },
      { isolationLevel: "ReadCommitted", timeout: 15_000 },
    );
    if (done) retired.push(id);
  }
  return retired;
}
