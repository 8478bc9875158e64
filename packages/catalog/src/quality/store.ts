import type { DataProduct, Prisma } from "@prisma/client";
import type { Db, Tx } from "../db.ts";
import { ValidationError } from "../errors.ts";
import { activePolicy } from "../policies/store.ts";
import { TASK_KINDS } from "../tasks.ts";
import { hasEncryptableFields } from "./registry-rules.ts";
import { canonicalRule, checkQualityRules, hasDlqRule, qualityLimitsFromPolicy, type QualityRule } from "./rules.ts";

/** A product's rules in force, in execution order. */
export async function qualityRulesOf(db: Db | Tx, productId: string): Promise<QualityRule[]> {
  const rows = await db.dataQualityRule.findMany({ where: { productId }, orderBy: { position: "asc" } });
  return rows.map((r) => canonicalRule({ name: r.name, description: r.description, kind: r.kind, expression: r.expression, mode: r.mode, onFailure: r.onFailure, tags: r.tags }));
}

/** The schema rules are checked against: the newest approved version, or (a draft) the newest one. */
export async function ruleSchemaOf(db: Db | Tx, productId: string): Promise<{ format: "AVRO" | "JSON_SCHEMA"; definition: string } | null> {
  const version =
    (await db.schemaVersion.findFirst({ where: { productId, status: "APPROVED" }, orderBy: { version: "desc" }, select: { format: true, definition: true } })) ??
    (await db.schemaVersion.findFirst({ where: { productId }, orderBy: { version: "desc" }, select: { format: true, definition: true } }));
  return version;
}

/** Checks the rules against the product's schema and the policy in force (throws a ValidationError naming the rule's field). */
export async function checkRulesFor(tx: Db | Tx, productId: string, rules: readonly QualityRule[]): Promise<void> {
  const policy = await activePolicy(tx);
  checkQualityRules(rules, await ruleSchemaOf(tx, productId), qualityLimitsFromPolicy(policy.document));
}

/** Replaces the product's rules (the caller holds the product's row lock). */
export async function replaceQualityRules(tx: Tx, productId: string, rules: readonly QualityRule[]): Promise<void> {
  await tx.dataQualityRule.deleteMany({ where: { productId } });
  if (rules.length === 0) return;
  await tx.dataQualityRule.createMany({
    data: rules.map((r, position) => ({ productId, position, name: r.name, description: r.description, kind: r.kind, expression: r.expression, mode: r.mode, onFailure: r.onFailure, tags: [...r.tags] })),
  });
}

/**
 * A live product whose dead-letter topic appears or goes: the worker's topic
 * step creates `<topic>.dlq` (it reconciles the product's topics) and the
 * producer grant brings the producer account's ACLs to the catalog's (WRITE on
 * the DLQ, READ for the owning domain; removed with the last DLQ rule).
 */
export async function enqueueDlqReconcile(tx: Tx, product: DataProduct, before: readonly QualityRule[], after: readonly QualityRule[]): Promise<boolean> {
  if (hasDlqRule(before) === hasDlqRule(after)) return false;
  const producer = await tx.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true } });
  const last = await tx.provisioningTask.aggregate({ where: { entityType: "DataProduct", entityId: product.id }, _max: { step: true } });
  const step = last._max.step ?? 0;
  const steps: { kind: string; payload: Prisma.InputJsonObject }[] = [{ kind: TASK_KINDS.CREATE_TOPIC, payload: { topic: product.topicName, dlq: hasDlqRule(after) } }];
  if (producer) {
    steps.push({ kind: TASK_KINDS.GRANT_PRODUCER_ACL, payload: { principal: `User:${producer.name}`, topic: product.topicName, operations: ["WRITE", "DESCRIBE"], cluster: ["IDEMPOTENT_WRITE"] } });
  }
  await tx.provisioningTask.createMany({ data: steps.map((s, i) => ({ ...s, entityType: "DataProduct", entityId: product.id, step: step + i + 1 })) });
  return true;
}

export const NOTHING_TO_ENCRYPT = "The schema classifies no field as PII: there is nothing to encrypt.";
export const MARK_PII_FIRST = 'Mark the fields that hold personal data as PII ("pii": true in Avro, "x-pii": true in JSON Schema) first.';

/** Encryption applies to fields classified PII: a schema without any has nothing to encrypt (checked on request and again on approval). */
export async function checkEncryptable(tx: Tx, productId: string): Promise<void> {
  const schema = await ruleSchemaOf(tx, productId);
  if (!schema || !hasEncryptableFields(schema.format, schema.definition)) throw new ValidationError(NOTHING_TO_ENCRYPT, { encryptPii: [MARK_PII_FIRST] });
}
