import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { producerAccountName } from "../naming.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { assertAccountUsable } from "../principals.ts";
import { lockProduct, moveProductStatus } from "../product-access.ts";
import { assignRegistryIds } from "../schema-registry/registry-ids.ts";
import { enqueueProductProvisioning } from "../tasks.ts";
import { nextProductStatus } from "../transitions.ts";
import { approvalCommentInput } from "../validation.ts";
import { carryOutClaimDecisions } from "./decide-claim-acls.ts";
import { supersedePredecessor } from "./publish-major-version.ts";

/**
 * The domain's producer account, created on its first approval. Found by
 * domain, never by name: an account of another domain that happens to carry
 * the name `<slug>-producer` is refused, not reused (it would hand the
 * squatter this domain's write access).
 */
async function ensureProducerAccount(tx: Tx, domainId: string) {
  const domain = await tx.domain.findUniqueOrThrow({ where: { id: domainId } });
  const existing = await tx.serviceAccount.findFirst({ where: { domainId, isProducer: true } });
  const producer =
    existing ??
    (await (async () => {
      const name = producerAccountName(domain.slug);
      const holder = await tx.serviceAccount.findUnique({ where: { name }, select: { domainId: true } });
      if (holder) {
        throw new ConflictError(
          `The producer name "${name}" is held by another account${holder.domainId === domainId ? " of this domain" : ""}; a platform admin must rename it before ${domain.slug} can publish.`,
          "PRODUCER_NAME_TAKEN",
        );
      }
      return tx.serviceAccount.create({ data: { domainId, name, description: `Producer account of the ${domain.name} domain`, isProducer: true } });
    })());
  await assertAccountUsable(tx, producer);
  return producer;
}

/**
 * Governance approves a product: its pending schema becomes approved, the
 * domain's producer account is created if it is new, and the provisioning plan
 * (topic, producer credentials, producer ACLs) is queued for the worker.
 */
export async function approveProduct(db: Db, acting: ActingUser, productId: string, rawInput: unknown = {}) {
  const { comment } = parseInput(approvalCommentInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can approve data products.");
    const product = await lockProduct(tx, productId);
    const to = nextProductStatus(product.status, "approve");
    assertFourEyes(actor, product, "this product");
    // A claimed topic: every ACL found on it is decided first; adopted ones become subscriptions (issue 31, point 2).
    await carryOutClaimDecisions(tx, actor, product);
    // A policy changed since submission still applies: nothing non-compliant reaches Kafka.
    const schema = await tx.schemaVersion.findFirst({ where: { productId }, orderBy: { version: "desc" } });
    const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: productId, facts: { product: productFacts(product, schema) } });
    const updated = await moveProductStatus(tx, product, to, { decidedById: actor.id, decidedAt: new Date(), decisionReason: comment || null, editorIds: [] });
    // A product in review has only its first schema; a rejected one that came back unchanged is approved with it.
    await tx.schemaVersion.updateMany({ where: { productId, status: { in: ["PENDING", "REJECTED"] } }, data: { status: "APPROVED", decidedById: actor.id, decidedAt: new Date(), decisionReason: null } });
    await assignRegistryIds(tx, { productId });
    const producer = await ensureProducerAccount(tx, product.domainId);
    await enqueueProductProvisioning(tx, updated, producer);
    const evaluation = await policy.record();
    // A new major version: only now is the version it replaces deprecated.
    await supersedePredecessor(tx, actor, updated);
    await recordAudit(tx, actor, "product.approved", "DataProduct", productId, { from: product.status, to, topic: product.topicName, policy: evaluation.summary, ...(comment ? { comment } : {}) });
    await notify(tx, {
      kind: "product.approved",
      title: `${product.name} was approved`,
      body: `Approved by ${actor.name}; the worker now creates ${product.topicName} and the producer's credentials.`,
      link: `/products/${productId}`,
      entityType: "DataProduct",
      entityId: productId,
      audience: { domainMembers: [product.domainId] },
      exclude: [actor.id],
    });
    return updated;
  });
}
