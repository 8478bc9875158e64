import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { hasGlobal } from "../permissions.ts";
import { assertAccountUsable } from "../principals.ts";
import { lockProduct } from "../product-access.ts";
import { enqueueSubscriptionGrant } from "../tasks.ts";

export const CLAIM_ACL_DECISIONS = ["REMOVE", "ADOPT", "EXCEPTION"] as const;
export type ClaimAclDecisionKind = (typeof CLAIM_ACL_DECISIONS)[number];

export const claimAclsInput = z.object({
  /** One decision per ACL found on the topic when it was claimed (`index` into the claim's found ACLs). */
  decisions: z
    .array(
      z.object({
        index: z.number().int().min(0),
        decision: z.enum(CLAIM_ACL_DECISIONS),
        /** ADOPT: the Kafka user name of the service account whose subscription the grant becomes. */
        serviceAccount: z.string().trim().min(1).max(64).optional(),
        /** EXCEPTION: why the grant stays outside the catalog (shown on the product). */
        reason: z.string().trim().max(1000).optional(),
      }),
    )
    .max(1000),
});

/** A found binding as the worker's scan stored it. */
export interface ClaimBinding {
  resourceType?: unknown;
  resourceName?: unknown;
  patternType?: unknown;
  principal?: unknown;
  host?: unknown;
  operation?: unknown;
  permission?: unknown;
}

/** What a claim's review decided for one found binding (TopicClaim.aclDecisions). */
export interface ClaimAclDecision {
  binding: ClaimBinding;
  decision: ClaimAclDecisionKind;
  /** ADOPT: the account (id, name, domain) whose subscription the grant becomes; its subscription once approved. */
  serviceAccountId?: string;
  serviceAccountName?: string;
  domainSlug?: string;
  subscriptionId?: string;
  /** EXCEPTION: the documented reason. */
  reason?: string;
}

/** Operations a subscription grants (READ and DESCRIBE on the topic): only such bindings can become one. */
const ADOPTABLE_OPERATIONS = new Set(["READ", "DESCRIBE"]);
const MIN_REASON = 10;

/**
 * The reviewer of a claimed topic decides, binding by binding, what happens to
 * each ACL found on it (issue 31, point 2) — grants made outside the catalog
 * would otherwise keep working unseen:
 *   REMOVE    — the worker deletes it once the claim is approved;
 *   ADOPT     — it becomes a subscription of a named service account (of any
 *               domain) on approval, whose grants the worker then manages; a
 *               binding of another principal is removed (access moves to the account);
 *   EXCEPTION — it stays as it is, with a documented reason listed on the product.
 * Every found binding needs a decision; only governance reviewers decide, never
 * the claimant (four eyes); only while the product is in review; audited.
 */
export async function decideClaimAcls(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { decisions } = parseInput(claimAclsInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers decide a claim's existing ACLs.");
    const product = await lockProduct(tx, productId);
    const claim = await tx.topicClaim.findUnique({ where: { productId } });
    if (!claim) throw new NotFoundError("Claim of product", productId);
    if (product.status !== "IN_REVIEW") throw new ConflictError(`The claim's ACLs are decided during review; the product is ${product.status}.`, "INVALID_TRANSITION");
    assertFourEyes(actor, product, "this claim");
    const found = (Array.isArray(claim.foundAcls) ? claim.foundAcls : []) as ClaimBinding[];
    const seen = new Set<number>();
    for (const d of decisions) {
      if (d.index >= found.length) throw new ValidationError("Choose bindings from the list found on the topic.", { decisions: [`Binding ${d.index} was not found on the topic.`] });
      if (seen.has(d.index)) throw new ValidationError("Each binding takes one decision.", { decisions: [`Binding ${d.index} is decided twice.`] });
      seen.add(d.index);
    }
    if (seen.size !== found.length) {
      const message = `Decide every ACL found on the topic: ${seen.size} of ${found.length} decided.`;
      throw new ValidationError(message, { decisions: [message] });
    }
    const out: ClaimAclDecision[] = [];
    for (const d of [...decisions].sort((a, b) => a.index - b.index)) {
      const binding = found[d.index] as ClaimBinding;
      const label = `${String(binding.principal)} ${String(binding.permission)} ${String(binding.operation)}`;
      if (d.decision === "REMOVE") {
        // A PREFIXED or `*` binding also grants other topics: removing it is the cluster operator's call, not this claim's.
        if (!removable(binding, claim.topic)) throw new ValidationError(`${label} covers other topics too (prefixed or wildcard): keep it as an exception; only bindings on exactly this topic can be removed with the claim.`, { decisions: [`${label}: covers other topics.`] });
        out.push({ binding, decision: "REMOVE" });
      } else if (d.decision === "EXCEPTION") {
        if (!d.reason || d.reason.length < MIN_REASON) throw new ValidationError(`Say why ${label} stays outside the catalog (at least ${MIN_REASON} characters); the reason is shown on the product.`, { reason: [`A reason of at least ${MIN_REASON} characters is required for an exception.`] });
        out.push({ binding, decision: "EXCEPTION", reason: d.reason });
      } else {
        if (!removable(binding, claim.topic) || binding.permission !== "ALLOW" || !ADOPTABLE_OPERATIONS.has(String(binding.operation))) {
          throw new ValidationError(`${label} cannot become a subscription: a subscription grants READ and DESCRIBE on exactly this topic. Keep it as an exception or remove it.`, { decisions: [`${label}: not a subscription's grant.`] });
        }
        if (!d.serviceAccount) throw new ValidationError(`Name the service account whose subscription ${label} becomes.`, { serviceAccount: ["Name a service account."] });
        out.push({ binding, decision: "ADOPT", ...(await adoptingAccount(tx, d.serviceAccount, product.domainId)) });
      }
    }
    await tx.topicClaim.update({
      where: { productId },
      data: { aclDecisions: out as unknown as Prisma.InputJsonValue[], removeAcls: bindingsToRemove(out) as Prisma.InputJsonValue[], aclsDecidedById: actor.id, aclsDecidedAt: new Date() },
    });
    const count = (k: ClaimAclDecisionKind) => out.filter((d) => d.decision === k).length;
    await recordAudit(tx, actor, "product.claimAclsDecided", "DataProduct", productId, {
      topic: claim.topic,
      remove: count("REMOVE"),
      adopt: count("ADOPT"),
      exception: count("EXCEPTION"),
      decisions: out.map((d) => ({ principal: String(d.binding.principal), operation: String(d.binding.operation), decision: d.decision, ...(d.serviceAccountName ? { account: d.serviceAccountName } : {}), ...(d.reason ? { reason: d.reason } : {}) })),
    });
    return { productId, decisions: out };
  });
}

async function adoptingAccount(tx: Tx, name: string, productDomainId: string) {
  const account = await tx.serviceAccount.findUnique({ where: { name }, include: { domain: { select: { slug: true, archivedAt: true } } } });
  if (!account) throw new ValidationError(`No service account is named ${name}; an owner of the consuming domain creates it first.`, { serviceAccount: [`No service account ${name}.`] });
  if (account.isProducer) throw new ValidationError(`${name} is a domain's producer account; a subscription needs a consumer account.`, { serviceAccount: ["A producer account cannot subscribe."] });
  if (account.domainId === productDomainId) throw new ValidationError(`${name} belongs to the product's own domain, which owns the product and needs no subscription.`, { serviceAccount: ["An account of the product's own domain."] });
  if (account.domain.archivedAt) throw new ValidationError(`${name} belongs to an archived domain.`, { serviceAccount: ["The account's domain is archived."] });
  await assertAccountUsable(tx, account);
  return { serviceAccountId: account.id, serviceAccountName: account.name, domainSlug: account.domain.slug };
}

/** What the worker deletes after adoption: REMOVE bindings, and ADOPT bindings of another principal than the account's. */
export function bindingsToRemove(decisions: readonly ClaimAclDecision[]): ClaimBinding[] {
  return decisions.filter((d) => d.decision === "REMOVE" || (d.decision === "ADOPT" && d.binding.principal !== `User:${d.serviceAccountName}`)).map((d) => d.binding);
}

/** Whether the claim may remove this binding: LITERAL, on the claimed topic. */
export function removable(binding: unknown, topic: string): boolean {
  if (typeof binding !== "object" || binding === null) return false;
  const b = binding as { resourceType?: unknown; patternType?: unknown; resourceName?: unknown };
  return b.resourceType === "TOPIC" && b.patternType === "LITERAL" && b.resourceName === topic;
}

/**
 * On approval of a claim: refuses one whose found ACLs are not all decided, and
 * turns every ADOPT decision into an APPROVED subscription of its account (one
 * per account), granted by the worker like any other. Called by approveProduct.
 */
export async function carryOutClaimDecisions(tx: Tx, actor: Actor, product: { id: string; name: string; topicName: string }): Promise<void> {
  const claim = await tx.topicClaim.findUnique({ where: { productId: product.id } });
  if (!claim) return;
  const found = Array.isArray(claim.foundAcls) ? claim.foundAcls : [];
  if (found.length > 0 && !claim.aclsDecidedAt && !claim.aclsDecidedById) {
    throw new ConflictError(`Decide each of the ${found.length} ACLs found on ${claim.topic} (keep as a subscription or an exception, or remove) before approving the claim.`, "CLAIM_ACLS_UNDECIDED");
  }
  const decisions = (Array.isArray(claim.aclDecisions) ? claim.aclDecisions : []) as unknown as ClaimAclDecision[];
  const adopted = new Map<string, string>();
  for (const d of decisions) {
    if (d.decision !== "ADOPT" || !d.serviceAccountId) continue;
    if (!adopted.has(d.serviceAccountId)) {
      const account = await tx.serviceAccount.findUnique({ where: { id: d.serviceAccountId } });
      if (!account) throw new ConflictError(`The account ${d.serviceAccountName ?? d.serviceAccountId} chosen to adopt ${String(d.binding.principal)} no longer exists; decide the ACLs again.`, "CLAIM_ACLS_UNDECIDED");
      await assertAccountUsable(tx, account);
      const now = new Date();
      const subscription = await tx.subscription.create({
        data: {
          productId: product.id,
          consumingDomainId: account.domainId,
          serviceAccountId: account.id,
          purpose: `Adopted from the ACLs found on ${claim.topic} when it was claimed (claim review).`,
          status: "APPROVED",
          requestedById: claim.aclsDecidedById ?? actor.id,
          decidedById: actor.id,
          decidedAt: now,
          reason: `Grant of ${String(d.binding.principal)} adopted by the claim's review.`,
        },
      });
      await enqueueSubscriptionGrant(tx, subscription, product.topicName, account);
      await recordAudit(tx, actor, "subscription.adopted", "Subscription", subscription.id, { product: product.name, topic: claim.topic, account: account.name, from: String(d.binding.principal) });
      adopted.set(d.serviceAccountId, subscription.id);
    }
    d.subscriptionId = adopted.get(d.serviceAccountId);
  }
  if (adopted.size > 0) await tx.topicClaim.update({ where: { productId: product.id }, data: { aclDecisions: decisions as unknown as Prisma.InputJsonValue[] } });
}
