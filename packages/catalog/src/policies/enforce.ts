import type { DataProduct, SchemaVersion } from "@prisma/client";
import type { Actor } from "../actor.ts";
import type { Db, Tx } from "../db.ts";
import { CatalogError } from "../errors.ts";
import type { PolicyEvent } from "./document.ts";
import { evaluatePolicy, type PolicyFacts, type ProductFacts, type RuleResult } from "./evaluate.ts";
import { activePolicy, jsonValue } from "./store.ts";

/*
 * Policy enforcement inside catalog actions: evaluate the policy in force
 * against the change, refuse on an `error` rule (PolicyViolationError, with the
 * rule ids in the API body), otherwise store the evaluation with the decision
 * in the same transaction as the change. A refused change's evaluation is
 * stored too, after its transaction rolled back (see recordRefusal).
 */

export interface PolicyCheck {
  event: PolicyEvent;
  entityType: "DataProduct" | "Subscription" | "SchemaVersion";
  entityId: string | null;
  facts: PolicyFacts;
  /**
   * The state before an edit. Only failures the change introduces block it:
   * a product that a newer policy put in violation can still fix its
   * description; it stays listed on the governance page until it complies.
   */
  baseline?: PolicyFacts;
  /**
   * Form fields the change is about: their failures block even when the
   * baseline failed them too (a partition increase past the bound is refused
   * even if the product was already above it).
   */
  changedFields?: string[];
}

export interface StoredEvaluation {
  id: string;
  policyVersion: number;
  decision: "ALLOWED" | "REFUSED";
  failures: number;
  warnings: number;
  /** Compact form for audit events: the rule ids that did not pass. */
  summary: { policyEvaluationId: string; policyVersion: number; failed: string[]; warned: string[] };
}

export class PolicyViolationError extends CatalogError {
  constructor(
    readonly check: PolicyCheck,
    readonly policyVersion: number,
    readonly results: RuleResult[],
    readonly blocking: RuleResult[],
    readonly actor: Pick<Actor, "id" | "email"> & { tokenId?: string | null },
  ) {
    const ids = blocking.map((r) => r.ruleId);
    const fields: Record<string, string[]> = {};
    for (const r of blocking) (fields[r.field ?? "_"] ??= []).push(`${r.message} (policy rule ${r.ruleId})`);
    super("POLICY_VIOLATION", 422, `Refused by policy v${policyVersion}: ${ids.join(", ")}. ${blocking.map((r) => r.message).join(" ")}`, fields, undefined, {
      policy: { version: policyVersion, event: check.event, rules: ids, results },
    });
    this.name = "PolicyViolationError";
  }
}

/** The facts the product rules look at, from a stored product and its newest schema. */
export function productFacts(product: DataProduct, schema: Pick<SchemaVersion, "format" | "definition"> | null): ProductFacts {
  return {
    name: product.name,
    description: product.description,
    contactEmail: product.contactEmail,
    classification: product.classification,
    partitions: product.partitions,
    retentionMs: Number(product.retentionMs),
    cleanupPolicy: product.cleanupPolicy,
    tieredStorage: product.tieredStorage,
    keyFields: product.keyFields,
    schema: schema ? { format: schema.format, definition: schema.definition } : null,
  };
}

function summaryOf(id: string, version: number, results: RuleResult[]): StoredEvaluation["summary"] {
  return {
    policyEvaluationId: id,
    policyVersion: version,
    failed: results.filter((r) => r.outcome === "fail").map((r) => r.ruleId),
    warned: results.filter((r) => r.outcome === "warn").map((r) => r.ruleId),
  };
}

export interface PolicyDecision {
  policyVersion: number;
  results: RuleResult[];
  /** Stores the evaluation as ALLOWED for the entity (known only after a registration created it). */
  record(entityId?: string): Promise<StoredEvaluation>;
}

/**
 * Evaluates the policy in force; refuses (throws PolicyViolationError) when an
 * `error` rule fails. Call it after the permission check and before the change
 * is written; then `record` the decision in the same transaction.
 */
export async function enforcePolicy(tx: Tx, actor: Actor, check: PolicyCheck): Promise<PolicyDecision> {
  const policy = await activePolicy(tx);
  const evaluation = evaluatePolicy(policy.document, check.event, check.facts);
  let blocking = evaluation.results.filter((r) => r.outcome === "fail");
  if (check.baseline) {
    const before = new Set(evaluatePolicy(policy.document, check.event, check.baseline).results.filter((r) => r.outcome === "fail").map((r) => r.ruleId));
    const changed = new Set(check.changedFields ?? []);
    blocking = blocking.filter((r) => !before.has(r.ruleId) || (r.field !== undefined && changed.has(r.field)));
  }
  const tokenId = actor.token?.id ?? null;
  if (blocking.length > 0) throw new PolicyViolationError(check, policy.version, evaluation.results, blocking, { id: actor.id, email: actor.email, tokenId });
  return {
    policyVersion: policy.version,
    results: evaluation.results,
    async record(entityId) {
      const row = await tx.policyEvaluation.create({
        data: {
          policyVersion: policy.version,
          event: check.event,
          entityType: check.entityType,
          entityId: entityId ?? check.entityId,
          decision: "ALLOWED",
          results: jsonValue(evaluation.results),
          failures: evaluation.failures,
          warnings: evaluation.warnings,
          actorId: actor.id,
          actorEmail: actor.email,
          tokenId,
        },
      });
      return { id: row.id, policyVersion: policy.version, decision: "ALLOWED", failures: evaluation.failures, warnings: evaluation.warnings, summary: summaryOf(row.id, policy.version, evaluation.results) };
    },
  };
}

/**
 * Stores a refused change's evaluation and an audit event `policy.refused`, in
 * a transaction of their own (the action's transaction has rolled back).
 */
export async function recordRefusal(db: Db, error: PolicyViolationError): Promise<void> {
  await db.$transaction(async (tx) => {
    const row = await tx.policyEvaluation.create({
      data: {
        policyVersion: error.policyVersion,
        event: error.check.event,
        entityType: error.check.entityType,
        entityId: error.check.entityId,
        decision: "REFUSED",
        results: jsonValue(error.results),
        failures: error.results.filter((r) => r.outcome === "fail").length,
        warnings: error.results.filter((r) => r.outcome === "warn").length,
        actorId: error.actor.id,
        actorEmail: error.actor.email,
        tokenId: error.actor.tokenId ?? null,
      },
    });
    await tx.auditEvent.create({
      data: {
        actorId: error.actor.id,
        actorEmail: error.actor.email,
        action: "policy.refused",
        entityType: error.check.entityType,
        entityId: error.check.entityId ?? "(not created)",
        data: jsonValue({
          event: error.check.event,
          ...summaryOf(row.id, error.policyVersion, error.results),
          blocking: error.blocking.map((r) => r.ruleId),
          ...(error.actor.tokenId ? { tokenId: error.actor.tokenId } : {}),
        }),
      },
    });
  });
}
