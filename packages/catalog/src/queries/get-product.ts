import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { dlqTopicOf, hasDlqRule } from "../quality/rules.ts";
import { taskLabel } from "../tasks.ts";
import { PUBLISHED_STATUSES } from "./search-products.ts";

/**
 * A product's page: metadata, schemas, provisioning steps, and — for its
 * owners and governance — every subscription; other readers see only their
 * own domains' subscriptions.
 */
export async function getProduct(db: Db, actor: Actor, productId: string) {
  const product = await db.dataProduct.findUnique({
    where: { id: productId },
    include: {
      domain: {
        include: { memberships: { where: { role: "OWNER" }, include: { user: { select: { name: true, email: true } } } } },
      },
      schemaVersions: { orderBy: { version: "desc" } },
      predecessor: { select: { id: true, topicName: true, majorVersion: true, status: true } },
      successor: { select: { id: true, topicName: true, majorVersion: true, status: true } },
      changeRequests: { orderBy: { createdAt: "desc" }, take: 20 },
      claim: true,
      qualityRules: { orderBy: { position: "asc" } },
      inputs: { include: { input: { select: { id: true, name: true, topicName: true, status: true } } } },
      outputs: { include: { product: { select: { id: true, name: true, topicName: true, status: true } } } },
    },
  });
  if (!product) throw new NotFoundError("Data product", productId);
  const published = (PUBLISHED_STATUSES as readonly string[]).includes(product.status) || product.status === "RETIRED";
  const inDomain = actor.memberships.some((m) => m.domainId === product.domainId);
  // Unpublished work of another domain is not there for this reader (404, not 403: no probing).
  if (!published && !inDomain && !hasGlobal(actor, "product:review")) throw new NotFoundError("Data product", productId);
  const isOwner = canInDomain(actor, "product:update", product.domainId);
  const seesAll = isOwner || hasGlobal(actor, "product:review");
  const myDomainIds = actor.memberships.map((m) => m.domainId);
  const [subscriptions, tasks, users, derived, encryptionKeys] = await Promise.all([
    db.subscription.findMany({
      where: { productId, ...(seesAll ? {} : { consumingDomainId: { in: myDomainIds } }) },
      include: { consumingDomain: { select: { slug: true, name: true } }, serviceAccount: { select: { name: true } } },
      orderBy: { createdAt: "desc" },
    }),
    db.provisioningTask.findMany({ where: { entityType: "DataProduct", entityId: productId }, orderBy: [{ createdAt: "asc" }, { step: "asc" }] }),
    db.user.findMany({
      where: { id: { in: [product.createdById, product.submittedById, product.decidedById].filter((x): x is string => !!x) } },
      select: { id: true, name: true, email: true },
    }),
    db.derivedProduct.findUnique({ where: { productId }, select: { statement: true, jobId: true, jobState: true } }),
    // Issue 29: the DEKs an owner's erasure request would destroy (owners and governance only).
    seesAll ? db.registryDek.count({ where: { productId } }) : Promise.resolve(null),
  ]);
  const nameOf = (id: string | null) => (id ? (users.find((u) => u.id === id) ?? null) : null);
  const { memberships, ...domain } = product.domain;
  const { changeRequests, claim, inputs, outputs, qualityRules, ...rest } = product;
  return {
    ...rest,
    // The contract's data-quality rules (issue 29), as the registry serves them; the dead-letter topic when a rule sends records there.
    qualityRules: qualityRules.map((r) => ({ name: r.name, description: r.description, kind: r.kind, expression: r.expression, mode: r.mode, onFailure: r.onFailure, tags: r.tags })),
    encryptionKeys,
    dlqTopic: hasDlqRule(qualityRules) ? dlqTopicOf(product.topicName) : null,
    // Declared inputs (this product is derived from them) and the products derived from it.
    inputProducts: inputs.map((i) => i.input),
    derivedProducts: outputs.map((o) => o.product),
    // A derived product (issue 34): the Flink SQL statement it is computed by; null for any other product.
    derived,
    // A claimed topic's ACLs found at claim time and the reviewer's decision: for the product's people and governance.
    claim: claim && seesAll ? claim : null,
    // Reviewed changes (e.g. added partitions): their requester and decision are for the product's people and governance.
    changeRequests: seesAll ? changeRequests : [],
    domain,
    owners: memberships.map((m) => m.user),
    createdBy: nameOf(product.createdById),
    submittedBy: nameOf(product.submittedById),
    decidedBy: nameOf(product.decidedById),
    subscriptions,
    provisioning: tasks.map((t) => ({
      id: t.id,
      step: t.step,
      kind: t.kind,
      label: topicStepLabel(t) ?? taskLabel(t.kind),
      status: t.status,
      attempts: t.attempts,
      lastError: t.lastError,
      updatedAt: t.updatedAt,
      completedAt: t.completedAt,
    })),
    viewer: {
      isOwner,
      canReview: hasGlobal(actor, "product:review"),
      canSubscribe: actor.memberships.some((m) => m.domainId !== product.domainId),
      // Reading records (message browser, latest state): the owning domain and active subscribers (recordViewer decides again).
      canBrowse: actor.memberships.some((m) => m.domainId === product.domainId) || subscriptions.some((s) => (s.status === "ACTIVE" || s.status === "APPROVED") && actor.memberships.some((m) => m.domainId === s.consumingDomainId)),
    },
  };
}

/** A later topic step (after an approved change) grows the topic rather than creating it. */
function topicStepLabel(task: { kind: string; step: number; payload: unknown }): string | null {
  if (task.kind !== "CREATE_TOPIC" || task.step === 1) return null;
  const partitions = typeof task.payload === "object" && task.payload !== null && "partitions" in task.payload ? task.payload.partitions : null;
  return typeof partitions === "number" ? `Grow topic to ${partitions} partitions and reconcile its configs` : "Reconcile topic configs and partitions";
}
