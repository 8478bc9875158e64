import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { subscriptionEnvironment } from "../environments/subscriptions.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { assertCarriedOver } from "../major-versions.ts";
import { notify } from "../notifications/notify.ts";
import { canInDomain } from "../permissions.ts";
import { enforcePolicy } from "../policies/enforce.ts";
import { assertAccountUsable } from "../principals.ts";
import { quotaClassChoice } from "../quotas/choose-quota-class.ts";
import { enqueueSubscriptionGrant } from "../tasks.ts";
import { SUBSCRIBABLE_STATUSES } from "../transitions.ts";
import { requestSubscriptionInput } from "../validation.ts";

/**
 * A member of a consuming domain asks for read access for one of that domain's
 * service accounts. PUBLIC products of a domain that opted in are approved at
 * once; everything else waits for an explicit decision.
 */
export async function requestSubscription(db: Db, acting: ActingUser, rawInput: unknown, carried?: { fromSubscriptionId: string }) {
  const input = parseInput(requestSubscriptionInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await tx.dataProduct.findUnique({ where: { id: input.productId }, include: { domain: true } });
    if (!product) throw new NotFoundError("Data product", input.productId);
    if (!SUBSCRIBABLE_STATUSES.includes(product.status)) {
      throw new ConflictError(`"${product.name}" is ${product.status} and does not accept subscriptions.`, "NOT_SUBSCRIBABLE");
    }
    // The account row is locked so two identical requests at once serialise
    // and the second sees the first in the duplicate check below.
    await tx.$queryRaw`SELECT id FROM "ServiceAccount" WHERE id = ${input.serviceAccountId} FOR UPDATE`;
    const account = await tx.serviceAccount.findUnique({ where: { id: input.serviceAccountId } });
    if (!account) throw new ValidationError("Some fields need attention.", { serviceAccountId: ["Choose one of your domain's service accounts."] });
    if (!canInDomain(actor, "subscription:request", account.domainId)) {
      throw new ForbiddenError("You can only request access for service accounts of a domain you belong to.");
    }
    await assertAccountUsable(tx, account);
    const consuming = await tx.domain.findUniqueOrThrow({ where: { id: account.domainId }, select: { name: true, archivedAt: true } });
    if (consuming.archivedAt) throw new ConflictError(`The ${consuming.name} domain is archived and cannot subscribe.`, "DOMAIN_ARCHIVED");
    if (account.isProducer) {
      throw new ValidationError("Some fields need attention.", { serviceAccountId: ["Producer accounts cannot subscribe; create a consumer account."] });
    }
    // A derived product's job account (issue 34): its grants follow the product's declared inputs, and nobody can pick its credentials up.
    if (await tx.derivedProduct.findUnique({ where: { serviceAccountId: account.id }, select: { productId: true } })) {
      throw new ValidationError("Some fields need attention.", { serviceAccountId: ["This account runs a derived product's Flink job and cannot subscribe; choose or create a consumer account."] });
    }
    if (account.domainId === product.domainId) {
      throw new ValidationError("Some fields need attention.", { productId: ["Your domain owns this product; it needs no subscription."] });
    }
    // NULL: the primary environment; another one only where the product's promotion is ACTIVE.
    const environment = await subscriptionEnvironment(tx, product.id, product.name, input.environment);
    const open = await tx.subscription.findFirst({
      where: { productId: product.id, serviceAccountId: account.id, environment, status: { in: ["REQUESTED", "APPROVED", "ACTIVE"] } },
    });
    if (open) throw new ConflictError(`${account.name} already has a ${open.status} subscription to "${product.name}"${environment ? ` in ${environment}` : ""}.`, "DUPLICATE_SUBSCRIPTION");
    if (carried) await assertCarriedOver(tx, carried.fromSubscriptionId, product.id, account.id);

    const openOfAccount = await tx.subscription.count({ where: { serviceAccountId: account.id, status: { in: ["REQUESTED", "APPROVED", "ACTIVE"] } } });
    const policy = await enforcePolicy(tx, actor, {
      event: "subscription.request",
      entityType: "Subscription",
      entityId: null,
      facts: { subscription: { purpose: input.purpose, accountName: account.name, openSubscriptionsOfAccount: openOfAccount, productClassification: product.classification } },
    });
    const autoApprove = product.classification === "PUBLIC" && product.domain.autoApprovePublicSubscriptions;
    // The class asked for: a larger one than the default waits for governance (quotas/choose-quota-class.ts).
    const quota = input.quotaClass !== undefined ? await quotaClassChoice(tx, actor, input.quotaClass, input.quotaClassReason, { quotaClass: "quotaClass", reason: "quotaClassReason" }) : null;
    const subscription = await tx.subscription.create({
      data: {
        productId: product.id,
        consumingDomainId: account.domainId,
        serviceAccountId: account.id,
        purpose: input.purpose,
        piiRequested: input.piiNeeded,
        piiJustification: input.piiNeeded ? (input.piiJustification ?? null) : null,
        requestedById: actor.id,
        expiresAt: input.expiresAt ?? null,
        environment,
        ...(quota ? { quotaClass: quota.quotaClass ?? null, quotaClassRequested: quota.quotaClassRequested, quotaClassReason: quota.quotaClassReason, quotaClassRequestedById: quota.quotaClassRequestedById } : {}),
        ...(carried ? { migratedFromId: carried.fromSubscriptionId } : {}),
        ...(autoApprove ? { status: "APPROVED", decidedAt: new Date(), reason: "Auto-approved: PUBLIC product, domain setting" } : {}),
      },
    });
    await recordAudit(tx, actor, "subscription.requested", "Subscription", subscription.id, {
      product: product.topicName,
      principal: `User:${account.name}`,
      purpose: input.purpose,
      ...(subscription.expiresAt ? { expiresAt: subscription.expiresAt.toISOString() } : {}),
      piiNeeded: input.piiNeeded,
      ...(environment ? { environment } : {}),
      ...(subscription.quotaClass ? { quotaClass: subscription.quotaClass } : {}),
      ...(subscription.quotaClassRequested ? { quotaClassRequested: subscription.quotaClassRequested, quotaClassReason: subscription.quotaClassReason } : {}),
      policy: (await policy.record(subscription.id)).summary,
    });
    if (autoApprove) {
      await enqueueSubscriptionGrant(tx, subscription, product.topicName, account);
      await recordAudit(tx, { id: null, email: "system" }, "subscription.auto-approved", "Subscription", subscription.id, {
        rule: "PUBLIC product; domain allows auto-approval",
      });
    }
    await notify(tx, {
      kind: autoApprove ? "subscription.approved" : "subscription.requested",
      title: autoApprove ? `${account.name} may read ${product.name}` : `${account.name} asks to read ${product.name}`,
      body: `${autoApprove ? "Approved automatically (PUBLIC product, domain setting)." : `Purpose: ${input.purpose}`}${input.piiNeeded ? " Asks for personal data (PII): only governance grants that, besides the owners' approval." : ""}`,
      link: `/subscriptions/${subscription.id}`,
      entityType: "Subscription",
      entityId: subscription.id,
      // RESTRICTED products are decided by governance only; the owners hear of it all the same.
      // A stated need for personal data is governance's to grant besides the owners' decision: they hear of it at once.
      audience: autoApprove
        ? { domainMembers: [account.domainId], governance: input.piiNeeded }
        : { domainOwners: [product.domainId], governance: product.classification === "RESTRICTED" || input.piiNeeded },
      webhookDomains: [product.domainId, account.domainId],
      exclude: [actor.id],
      data: { product: product.topicName, principal: `User:${account.name}` },
    });
    return subscription;
  });
}
