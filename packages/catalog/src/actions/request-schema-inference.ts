import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import { inferenceView, requireClusterBrowser } from "../queries/cluster-topics.ts";
import { TASK_KINDS } from "../tasks.ts";
import { PLATFORM_TOPIC } from "./claim-topic.ts";

/** A pending request younger than this is joined rather than queued again (older: the worker may have died; ask anew). */
const PENDING_JOIN_MS = 2 * 60_000;

export const schemaInferenceInput = z.object({ topic: z.string().trim().min(1, "Name the topic.").max(249) });

/**
 * Asks the worker to infer an unmanaged topic's schema from sample records,
 * for the claim form. The portal holds no Kafka read access, so the worker —
 * which does — reads a bounded sample, infers the schema
 * (schema/infer.ts) and stores only the result; the owner reviews and edits it
 * before submitting the claim. A new request replaces the previous result.
 */
export async function requestSchemaInference(db: Db, acting: ActingUser, rawInput: unknown) {
  const { topic } = parseInput(schemaInferenceInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireClusterBrowser(actor);
    if (PLATFORM_TOPIC.test(topic)) throw new ValidationError(`${topic} belongs to Kafka or the platform; it is never sampled.`, { topic: ["A platform topic cannot be claimed or sampled."] });
    const observed = await tx.clusterTopic.findUnique({ where: { name: topic }, select: { productId: true } });
    if (!observed) throw new NotFoundError("Topic on the cluster", topic);
    // A product's records are read through the message browser, with its access rules; this is for unmanaged topics only.
    if (observed.productId || (await tx.dataProduct.findUnique({ where: { topicName: topic }, select: { id: true } }))) {
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
