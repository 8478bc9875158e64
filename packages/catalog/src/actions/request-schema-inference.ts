import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { lockProduct } from "../product-access.ts";
import { inferenceView, requireInferenceAccess } from "../queries/cluster-topics.ts";
import { TASK_KINDS } from "../tasks.ts";
import { PLATFORM_TOPIC } from "./claim-topic.ts";

/** A pending request younger than this is joined rather than queued again (older: the worker may have died; ask anew). */
const PENDING_JOIN_MS = 2 * 60_000;

export const schemaInferenceInput = z.object({ topic: z.string().max(249).trim().min(1, "Name the topic.") });

/**
 * Asks the worker to infer an unmanaged topic's schema from sample records,
 * for the claim form. The portal holds no Kafka read access, so the worker —
 * which does — reads a bounded sample, infers the schema
 * (schema/infer.ts) and stores only the result; the owner reviews and edits it
 * before submitting the claim. A new request replaces the previous result.
 * Platform admins only, or the owners of a claim an admin approved for
 * sampling (approveClaimSampling): records may hold data no grant covers.
 */
export async function requestSchemaInference(db: Db, acting: ActingUser, rawInput: unknown) {
  const { topic } = parseInput(schemaInferenceInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const { claimProductId } = await requireInferenceAccess(tx, actor, topic);
    if (PLATFORM_TOPIC.test(topic)) throw new ValidationError(`${topic} belongs to Kafka or the platform; it is never sampled.`, { topic: ["A platform topic cannot be claimed or sampled."] });
    const observed = await tx.clusterTopic.findUnique({ where: { name: topic }, select: { productId: true } });
    if (!observed) throw new NotFoundError("Topic on the cluster", topic);
    // A product's records are read through the message browser, with its access rules; this is for unmanaged topics only
    // (and the open claim whose sampling an admin approved: its draft takes the inferred schema).
    const product = await tx.dataProduct.findUnique({ where: { topicName: topic }, select: { id: true } });
    if (observed.productId || (product && product.id !== claimProductId)) {
      throw new ConflictError(`${topic} belongs to a data product already; its schema is the product's.`, "TOPIC_MANAGED");
    }
    // One sample at a time per topic: repeated clicks while the worker reads join the pending request.
    const pending = await tx.topicSchemaInference.findUnique({ where: { topic } });
    if (pending?.status === "PENDING" && Date.now() - pending.requestedAt.getTime() < PENDING_JOIN_MS) return inferenceView(pending);
    const row = await tx.topicSchemaInference.upsert({
      where: { topic },
      create: { topic, requestedById: actor.id },
      update: { status: "PENDING", requestedById: actor.id, requestedAt: new Date(), sampled: 0, inferred: false, format: null, definition: null, registrySchemaId: null, explanation: "", lastError: null, finishedAt: null },
    });
    const last = await tx.provisioningTask.aggregate({ where: { entityType: "ClusterTopic", entityId: topic }, _max: { step: true } });
    await tx.provisioningTask.create({ data: { kind: TASK_KINDS.INFER_TOPIC_SCHEMA, payload: { topic }, entityType: "ClusterTopic", entityId: topic, step: (last._max.step ?? 0) + 1 } });
    await recordAudit(tx, actor, "clusterTopic.schemaInferenceRequested", "ClusterTopic", topic, {});
    return inferenceView(row);
  });
}

/**
 * A platform admin allows the owners of the open claim (DRAFT, in review or
 * rejected) on a topic to have the worker sample it and infer its schema
 * (issue 30, finding 5): `{ topic }`, as admins browse the cluster. Audited;
 * the approval ends with the claim (approved, the topic and its schema are the
 * product's).
 */
export async function approveClaimSampling(db: Db, acting: ActingUser, rawInput: unknown) {
  const { topic } = parseInput(schemaInferenceInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "platform:admin")) throw new ForbiddenError("Only platform admins approve sampling a claimed topic's records.");
    const claim = await tx.topicClaim.findUnique({ where: { topic }, select: { productId: true } });
    if (!claim) throw new NotFoundError("Claim of topic", topic);
    const product = await lockProduct(tx, claim.productId);
    if (!["DRAFT", "IN_REVIEW", "REJECTED"].includes(product.status)) {
      throw new ConflictError(`Sampling is approved for an open claim; the claim of ${topic} is ${product.status} and its schema is the product's.`, "INVALID_TRANSITION");
    }
    const updated = await tx.topicClaim.update({ where: { productId: product.id }, data: { samplingApprovedById: actor.id, samplingApprovedAt: new Date() } });
    await recordAudit(tx, actor, "clusterTopic.samplingApproved", "ClusterTopic", topic, { productId: product.id });
    return { topic, productId: product.id, samplingApprovedAt: updated.samplingApprovedAt };
  });
}
