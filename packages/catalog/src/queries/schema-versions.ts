import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { READING_STATUSES } from "../major-versions.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { schemaFingerprint } from "../schema/canonical.ts";
import { SUBSCRIBABLE_STATUSES } from "../transitions.ts";
import { PUBLISHED_STATUSES } from "./search-products.ts";

/**
 * Every schema version of a product with its status, dates, proposer and
 * decider, registry id and fingerprint; plus the product's place in its chain
 * of major versions. Readable by whoever may read the product; proposals
 * still in review or rejected are shown to its owners and governance only.
 */
export async function listSchemaVersions(db: Db, actor: Actor, productId: string) {
  const product = await db.dataProduct.findUnique({
    where: { id: productId },
    include: {
      schemaVersions: { orderBy: { version: "desc" } },
      predecessor: { select: { id: true, topicName: true, majorVersion: true, status: true } },
      successor: { select: { id: true, topicName: true, majorVersion: true, status: true } },
    },
  });
  if (!product) throw new NotFoundError("Data product", productId);
  const published = (PUBLISHED_STATUSES as readonly string[]).includes(product.status) || product.status === "RETIRED";
  const insider = actor.memberships.some((m) => m.domainId === product.domainId) || hasGlobal(actor, "product:review");
  if (!published && !insider) throw new NotFoundError("Data product", productId);
  const visible = insider ? product.schemaVersions : product.schemaVersions.filter((v) => v.status === "APPROVED");
  const isOwner = canInDomain(actor, "product:update", product.domainId);
  const modeChange = insider
    ? await db.productChangeRequest.findFirst({ where: { productId, kind: "COMPATIBILITY_MODE", status: "REQUESTED" }, select: { id: true, payload: true, reason: true, createdAt: true } })
    : null;
  const ids = [...new Set(visible.flatMap((v) => [v.proposedById, v.decidedById]).filter((x): x is string => !!x))];
  const users = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } });
  const who = (id: string | null) => users.find((u) => u.id === id) ?? null;
  return {
    productId: product.id,
    compatibilityMode: product.compatibilityMode,
    majorVersion: product.majorVersion,
    predecessor: product.predecessor,
    successor: product.successor,
    canPropose: isOwner && ["ACTIVE", "DEPRECATED"].includes(product.status),
    /** Approved products change their mode only through review. */
    canRequestModeChange: isOwner && !["DRAFT", "REJECTED", "RETIRED"].includes(product.status),
    pendingModeChange: modeChange ? { id: modeChange.id, to: (modeChange.payload as { to?: string }).to ?? null, reason: modeChange.reason, requestedAt: modeChange.createdAt } : null,
    versions: visible.map((v) => ({
      id: v.id,
      version: v.version,
      status: v.status,
      format: v.format,
      definition: v.definition,
      schemaId: v.schemaId,
      fingerprint: v.fingerprint ?? schemaFingerprint(v.format, v.definition),
      createdAt: v.createdAt,
      proposedBy: who(v.proposedById),
      decidedBy: who(v.decidedById),
      decidedAt: v.decidedAt,
      decisionReason: v.decisionReason,
    })),
  };
}

function successorOffer(subscription: {
  id: string;
  status: string;
  serviceAccount: { name: string };
  product: { id: string; name: string; topicName: string; status: string; sunsetAt: Date | null; successor: { id: string; topicName: string; majorVersion: number; status: string } | null };
}, carried: { id: string; status: string; productId: string } | undefined) {
  const successor = subscription.product.successor;
  return {
    subscriptionId: subscription.id,
    serviceAccount: subscription.serviceAccount.name,
    product: { id: subscription.product.id, name: subscription.product.name, topicName: subscription.product.topicName, status: subscription.product.status, sunsetAt: subscription.product.sunsetAt },
    successor: successor ? { ...successor, subscribable: (SUBSCRIBABLE_STATUSES as readonly string[]).includes(successor.status) } : null,
    /** The request already carried over, if one was made. */
    carriedOver: carried ? { subscriptionId: carried.id, status: carried.status } : null,
  };
}

const NOTICE_INCLUDE = {
  serviceAccount: { select: { name: true } },
  product: { select: { id: true, domainId: true, name: true, topicName: true, status: true, sunsetAt: true, successor: { select: { id: true, topicName: true, majorVersion: true, status: true } } } },
} as const;

/**
 * For the subscriber: their readable subscriptions to deprecated products,
 * with the newer major version and whether the same access was requested on
 * it already (My domain lists them; each subscription page shows its own).
 */
export async function successorNotices(db: Db, actor: Actor) {
  const domainIds = actor.memberships.map((m) => m.domainId);
  const subscriptions = await db.subscription.findMany({
    where: { consumingDomainId: { in: domainIds }, status: { in: [...READING_STATUSES] }, product: { status: "DEPRECATED" } },
    orderBy: { createdAt: "asc" },
    include: NOTICE_INCLUDE,
  });
  const carried = await db.subscription.findMany({ where: { migratedFromId: { in: subscriptions.map((s) => s.id) }, status: { notIn: ["REJECTED", "REVOKED"] } } });
  return subscriptions.map((s) => successorOffer(s, carried.find((c) => c.migratedFromId === s.id)));
}

/** The notice for one subscription, or null when its product is not deprecated. */
export async function subscriptionSuccessorNotice(db: Db, actor: Actor, subscriptionId: string) {
  const subscription = await db.subscription.findUnique({ where: { id: subscriptionId }, include: NOTICE_INCLUDE });
  if (!subscription) throw new NotFoundError("Subscription", subscriptionId);
  const mine = actor.memberships.some((m) => m.domainId === subscription.consumingDomainId);
  if (!mine && !canInDomain(actor, "product:update", subscription.product.domainId) && !hasGlobal(actor, "product:review")) {
    throw new ForbiddenError("Only members of the subscribing domain can see this.");
  }
  if (subscription.product.status !== "DEPRECATED") return null;
  const carried = await db.subscription.findFirst({ where: { migratedFromId: subscription.id, status: { notIn: ["REJECTED", "REVOKED"] } } });
  return { ...successorOffer(subscription, carried ?? undefined), canRequest: mine && (READING_STATUSES as readonly string[]).includes(subscription.status) };
}
