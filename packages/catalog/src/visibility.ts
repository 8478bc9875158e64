import type { Actor } from "./actor.ts";
import type { Db, Tx } from "./db.ts";
import { NotFoundError } from "./errors.ts";
import { hasGlobal } from "./permissions.ts";
import { PUBLISHED_STATUSES } from "./queries/search-sql.ts";

/*
 * Whether a caller may know that a row exists at all (issue 30, finding 9).
 * For ids the caller may not see, PATCH/submit of a product, its messages,
 * review and drift, a subscription, a credential reveal and a schema version
 * answered 403 where an unknown id answered 404 — a probe for what other
 * domains are preparing — and a draft's environments answered 200 with its
 * topic and configs. Every route that takes one of these ids asks here first
 * and answers the same 404 for "does not exist" and "not yours to see";
 * permission checks (403) come after, for rows the caller can see.
 *
 * Who sees what:
 *  - a product: everyone signed in once published (APPROVED … DEPRECATED,
 *    RETIRED); before that, members of its domain and governance (as getProduct);
 *  - a subscription: members of the product's domain, of the subscribing
 *    domain, and governance;
 *  - a service account and its credentials: members of its domain, governance
 *    and platform admins;
 *  - a schema version, a reviewed change, a promotion: its product's domain
 *    members and governance (an approved schema version: whoever sees the product);
 *  - a provisioning task: whoever sees what it provisions (admins: all, they run the queue);
 *  - a webhook: members of its domain and platform admins.
 */

export type VisibleKind = "product" | "subscription" | "serviceAccount" | "schemaVersion" | "changeRequest" | "promotion" | "provisioningTask" | "webhook";

const ENTITY: Record<VisibleKind, string> = {
  product: "Data product",
  subscription: "Subscription",
  serviceAccount: "Service account",
  schemaVersion: "Schema version",
  changeRequest: "Change request",
  promotion: "Promotion",
  provisioningTask: "Provisioning task",
  webhook: "Webhook",
};

const isMember = (actor: Actor, domainId: string) => actor.memberships.some((m) => m.domainId === domainId);
const isGovernance = (actor: Actor) => hasGlobal(actor, "product:review");

/** The product rule of getProduct: published or retired for everyone, unpublished work for its domain and governance. */
export function productVisibleTo(actor: Actor, product: { domainId: string; status: string }): boolean {
  const published = (PUBLISHED_STATUSES as readonly string[]).includes(product.status) || product.status === "RETIRED";
  return published || isMember(actor, product.domainId) || isGovernance(actor);
}

async function productVisible(db: Db | Tx, actor: Actor, productId: string): Promise<boolean> {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { domainId: true, status: true } });
  return product !== null && productVisibleTo(actor, product);
}

async function subscriptionVisible(db: Db | Tx, actor: Actor, subscriptionId: string): Promise<boolean> {
  const sub = await db.subscription.findUnique({ where: { id: subscriptionId }, select: { consumingDomainId: true, product: { select: { domainId: true } } } });
  return sub !== null && (isMember(actor, sub.product.domainId) || isMember(actor, sub.consumingDomainId) || isGovernance(actor));
}

async function accountVisible(db: Db | Tx, actor: Actor, accountId: string): Promise<boolean> {
  const account = await db.serviceAccount.findUnique({ where: { id: accountId }, select: { domainId: true } });
  return account !== null && (isMember(actor, account.domainId) || isGovernance(actor) || hasGlobal(actor, "platform:admin"));
}

/** Rows that belong to a product's review: its domain and governance, and nobody else. */
async function reviewRowVisible(db: Db | Tx, actor: Actor, productId: string | null): Promise<boolean> {
  if (productId === null) return false;
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { domainId: true } });
  return product !== null && (isMember(actor, product.domainId) || isGovernance(actor));
}

async function visible(db: Db | Tx, actor: Actor, kind: VisibleKind, id: string): Promise<boolean> {
  switch (kind) {
    case "product":
      return productVisible(db, actor, id);
    case "subscription":
      return subscriptionVisible(db, actor, id);
    case "serviceAccount":
      return accountVisible(db, actor, id);
    case "schemaVersion": {
      const version = await db.schemaVersion.findUnique({ where: { id }, select: { productId: true, status: true } });
      if (!version) return false;
      return version.status === "APPROVED" ? productVisible(db, actor, version.productId) : reviewRowVisible(db, actor, version.productId);
    }
    case "changeRequest": {
      const change = await db.productChangeRequest.findUnique({ where: { id }, select: { productId: true } });
      return change !== null && reviewRowVisible(db, actor, change.productId);
    }
    case "promotion": {
      const deployment = await db.productDeployment.findUnique({ where: { id }, select: { productId: true } });
      return deployment !== null && reviewRowVisible(db, actor, deployment.productId);
    }
    case "provisioningTask": {
      const task = await db.provisioningTask.findUnique({ where: { id }, select: { entityType: true, entityId: true } });
      if (!task) return false;
      if (hasGlobal(actor, "platform:admin")) return true;
      if (task.entityType === "DataProduct") return productVisible(db, actor, task.entityId);
      if (task.entityType === "Subscription") return subscriptionVisible(db, actor, task.entityId);
      if (task.entityType === "ServiceAccount") return accountVisible(db, actor, task.entityId);
      return isGovernance(actor);
    }
    case "webhook": {
      const hook = await db.webhookEndpoint.findUnique({ where: { id }, select: { domainId: true } });
      return hook !== null && (isMember(actor, hook.domainId) || hasGlobal(actor, "platform:admin"));
    }
  }
}

/** Throws the same 404 for an id that does not exist and one the caller may not see. */
export async function requireVisible(db: Db | Tx, actor: Actor, kind: VisibleKind, id: string): Promise<void> {
  // Ids are cuids; anything else (too long, odd characters) exists nowhere and is not looked up.
  if (id.length > 64 || !(await visible(db, actor, kind, id))) throw new NotFoundError(ENTITY[kind], id);
}
