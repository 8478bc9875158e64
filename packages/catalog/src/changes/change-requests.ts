import type { DataProduct, ProductChangeRequest } from "@prisma/client";
import { z } from "zod";
import type { Actor } from "../actor.ts";
import type { Tx } from "../db.ts";
import { checkReplayPoint, createJobCommand, jobPhase, OPEN_COMMAND_STATUSES, derivedReplayInput } from "../derived/job-commands.ts";
import { applyStatementChange } from "../derived/statement-change.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { enforcePolicy, productFacts, type PolicyDecision } from "../policies/enforce.ts";
import { qualityRulesInput, sameRules } from "../quality/rules.ts";
import { checkEncryptable, checkRulesFor, enqueueDlqReconcile, qualityRulesOf, replaceQualityRules } from "../quality/store.ts";
import { COMPATIBILITY_MODES } from "../schema/modes.ts";
import { shredProductDeks } from "../schema-registry/dek-registry.ts";
import { TASK_KINDS, topicConfigs } from "../tasks.ts";

/**
 * Reviewed changes to a live product that are not schema versions. Each kind
 * has a payload schema and an `apply` that runs inside the approval's
 * transaction (catalog change + the worker's step, together).
 */
export const CHANGE_KINDS = { ADD_PARTITIONS: "ADD_PARTITIONS", COMPATIBILITY_MODE: "COMPATIBILITY_MODE", QUALITY_RULES: "QUALITY_RULES", DERIVED_REPLAY: "DERIVED_REPLAY", DERIVED_STATEMENT: "DERIVED_STATEMENT", KEY_ERASURE: "KEY_ERASURE" } as const;
export type ChangeKind = (typeof CHANGE_KINDS)[keyof typeof CHANGE_KINDS];

export const addPartitionsPayload = z.object({ from: z.number().int().min(1), to: z.number().int().min(2) });

/** A product's compatibility mode, changed only through review (NONE included: switching checks off is a decision too). */
export const compatibilityModePayload = z.object({ from: z.enum(COMPATIBILITY_MODES), to: z.enum(COMPATIBILITY_MODES) });

/** A product's data-quality rules, the whole list before and after (issue 29). */
export const qualityRulesPayload = z.object({
  from: qualityRulesInput.shape.rules,
  to: qualityRulesInput.shape.rules,
  /** The owners' opt-in to field-level encryption of PII fields, when the request changes it. */
  encryptPii: z.object({ from: z.boolean(), to: z.boolean() }).optional(),
});

/** A replay of a CONFIDENTIAL or RESTRICTED derived product's job (issue 34): where it reads from, and the job it replaces. */
export const derivedReplayPayload = z.object({ from: derivedReplayInput.shape.from, jobId: z.string().nullable() });

/**
 * Tells governance (and the product's domain's webhooks) that a change request
 * on the product waits for review — `what` ends the title, e.g. "3 → 6
 * partitions waits for review"; the requester is not told.
 */
export async function notifyChangeAwaitsReview(tx: Tx, actor: { id: string; name: string }, product: { id: string; name: string; domainId: string }, what: string, reason: string): Promise<void> {
  await notify(tx, {
    kind: "product.review-requested",
    title: `${product.name}: ${what}`,
    body: `Requested by ${actor.name}: ${reason}`,
    link: "/review",
    entityType: "DataProduct",
    entityId: product.id,
    audience: { governance: true },
    webhookDomains: [product.domainId],
    exclude: [actor.id],
  });
}

export async function lockChangeRequest(tx: Tx, id: string): Promise<ProductChangeRequest & { product: DataProduct }> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ProductChangeRequest" WHERE id = ${id} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Change request", id);
  return tx.productChangeRequest.findUniqueOrThrow({ where: { id }, include: { product: true } });
}

/**
 * The policy verdict on a partition count for a live product: the same
 * `partition-bounds` rules (and any other product.update rule) as an edit,
 * with the current product as the baseline — and the partition count is what
 * changes, so its bound blocks even when the product was already outside it.
 */
export async function enforcePartitionPolicy(tx: Tx, actor: Actor, product: DataProduct, partitions: number): Promise<PolicyDecision> {
  const schema = await tx.schemaVersion.findFirst({ where: { productId: product.id, status: "APPROVED" }, orderBy: { version: "desc" } });
  return enforcePolicy(tx, actor, {
    event: "product.update",
    entityType: "DataProduct",
    entityId: product.id,
    facts: { product: { ...productFacts(product, schema), partitions } },
    baseline: { product: productFacts(product, schema) },
    changedFields: ["partitions"],
  });
}

/** Queues a reconcile step for the product's topic after its earlier steps (the worker grows partitions and sets configs; it never recreates). */
export async function enqueueTopicReconcile(tx: Tx, product: DataProduct): Promise<void> {
  const last = await tx.provisioningTask.aggregate({ where: { entityType: "DataProduct", entityId: product.id }, _max: { step: true } });
  await tx.provisioningTask.create({
    data: {
      kind: TASK_KINDS.CREATE_TOPIC,
      payload: { topic: product.topicName, partitions: product.partitions, configs: topicConfigs(product) },
      entityType: "DataProduct",
      entityId: product.id,
      step: (last._max.step ?? 0) + 1,
    },
  });
}

/** Applies an approved change. The product row is locked by the caller; `decidedBy` is the approving reviewer. */
export async function applyChange(tx: Tx, request: ProductChangeRequest & { product: DataProduct }, decidedBy: { id: string } | null = null): Promise<Record<string, string | number>> {
  switch (request.kind) {
    case CHANGE_KINDS.ADD_PARTITIONS: {
      const payload = addPartitionsPayload.safeParse(request.payload);
      if (!payload.success) throw new ValidationError("The change request's payload is malformed.");
      const { to } = payload.data;
      if (request.product.status !== "ACTIVE") {
        throw new ConflictError(`Partitions can only be added to an ACTIVE product; this one is ${request.product.status}.`, "PRODUCT_NOT_ACTIVE");
      }
      // Another change may have raised the count meanwhile: Kafka only grows.
      if (to <= request.product.partitions) {
        throw new ConflictError(`The product has ${request.product.partitions} partitions already; ${to} would not add any.`, "NOTHING_TO_ADD");
      }
      const product = await tx.dataProduct.update({ where: { id: request.productId }, data: { partitions: to } });
      await enqueueTopicReconcile(tx, product);
      return { from: request.product.partitions, to };
    }
    case CHANGE_KINDS.COMPATIBILITY_MODE: {
      const payload = compatibilityModePayload.safeParse(request.payload);
      if (!payload.success) throw new ValidationError("The change request's payload is malformed.");
      const { from, to } = payload.data;
      if (request.product.status === "RETIRED") throw new ConflictError("The product is retired; its mode no longer matters.", "PRODUCT_RETIRED");
      // The mode the request was made against must still be the one in force.
      if (request.product.compatibilityMode !== from) {
        throw new ConflictError(`The mode is ${request.product.compatibilityMode} now, not ${from}; ask again from the current mode.`, "MODE_CHANGED");
      }
      await tx.dataProduct.update({ where: { id: request.productId }, data: { compatibilityMode: to } });
      return { from, to };
    }
    case CHANGE_KINDS.QUALITY_RULES: {
      const payload = qualityRulesPayload.safeParse(request.payload);
      if (!payload.success) throw new ValidationError("The change request's payload is malformed.");
      const { from, to, encryptPii } = payload.data;
      if (request.product.status === "RETIRED") throw new ConflictError("The product is retired.", "PRODUCT_RETIRED");
      // The rules the request was made against must still be the ones in force.
      if (!sameRules(await qualityRulesOf(tx, request.productId), from)) throw new ConflictError("The product's rules changed since this request; ask again from the current rules.", "RULES_CHANGED");
      if (encryptPii && request.product.encryptPii !== encryptPii.from) throw new ConflictError("The product's encryption setting changed since this request; ask again.", "RULES_CHANGED");
      // Checked again: the schema or the policy may have changed while it waited.
      await checkRulesFor(tx, request.productId, to);
      if (encryptPii?.to) await checkEncryptable(tx, request.productId);
      await replaceQualityRules(tx, request.productId, to);
      if (encryptPii) await tx.dataProduct.update({ where: { id: request.productId }, data: { encryptPii: encryptPii.to } });
      const dlqChanged = await enqueueDlqReconcile(tx, request.product, from, to);
      return { from: from.length, to: to.length, rules: to.map((r) => r.name).join(", "), dlq: dlqChanged ? "reconciled" : "unchanged", ...(encryptPii ? { encryptPii: String(encryptPii.to) } : {}) };
    }
    case CHANGE_KINDS.DERIVED_REPLAY: {
      const payload = derivedReplayPayload.safeParse(request.payload);
      if (!payload.success) throw new ValidationError("The change request's payload is malformed.");
      const { from } = payload.data;
      if (request.product.status !== "ACTIVE" && request.product.status !== "DEPRECATED") throw new ConflictError(`The product is ${request.product.status}: its job cannot be replayed.`, "PRODUCT_NOT_LIVE");
      // Checked again: the job may have been stopped, and the inputs' retention may have passed the point, while it waited.
      const derived = await tx.derivedProduct.findUnique({ where: { productId: request.productId } });
      const phase = derived ? jobPhase(derived) : "NOT_DEPLOYED";
      if (!derived || (phase !== "RUNNING" && phase !== "PAUSED")) throw new ConflictError(`The job is ${phase.toLowerCase().replace("_", " ")} now: there is nothing to replay.`, "JOB_NOT_RUNNING");
      if (await tx.derivedJobCommand.findFirst({ where: { productId: request.productId, status: { in: [...OPEN_COMMAND_STATUSES] } } })) throw new ConflictError("Another change of this job is under way; approve the replay once it is done.", "JOB_COMMAND_OPEN");
      const inputs = await tx.productInput.findMany({ where: { productId: request.productId }, select: { input: { select: { topicName: true, retentionMs: true } } } });
      checkReplayPoint(from, inputs.map((i) => i.input));
      // The requester's intent, carried out by the worker; the approval is audited by the caller.
      const command = await createJobCommand(tx, null, request.productId, { kind: "REPLAY", replayFrom: from, changeRequestId: request.id, fromJobId: derived.jobId, requestedById: request.requestedById });
      return { from, commandId: command.id };
    }
    case CHANGE_KINDS.DERIVED_STATEMENT:
      return applyStatementChange(tx, request, decidedBy);
    case CHANGE_KINDS.KEY_ERASURE: {
      // Crypto-shredding on an owner's request (issue 29): every DEK the product has now, including any created while
      // the request waited — the obligation is about the data in the log, not about a list of keys.
      if (request.product.status === "RETIRED") throw new ConflictError("The product is retired: its keys were destroyed with it.", "PRODUCT_RETIRED");
      const destroyed = await shredProductDeks(tx, request.productId);
      // approveChangeRequest records them as product.keys-destroyed (as retirement does), with the approver.
      return { keysDestroyed: destroyed.length, subjects: [...new Set(destroyed.map((d) => d.subject))].join(", ") };
    }
    default:
      throw new ValidationError(`Unknown change kind ${request.kind}.`);
  }
}
