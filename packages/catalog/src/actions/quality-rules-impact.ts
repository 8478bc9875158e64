import { loadActingActor, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, qualityRulesPayload } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import type { QualityRule } from "../quality/rules.ts";
import { ruleSchemaOf } from "../quality/store.ts";
import { consumeRateLimit } from "../rate-limit.ts";
import type { RecordSource } from "../records/source.ts";
import { evaluationContextOf } from "../records/viewer.ts";
import { evaluateSample, sampleNewestRecords, type RuleTestOptions, type RuleTestResult } from "./test-quality-rules.ts";

/*
 * What a pending change of a product's data-quality rules would do to its
 * data (issue 29: governance "reviews it with the diff and the share of
 * recent records the new rules would refuse"): the proposed rules and the
 * rules in force, each evaluated against the newest records of the product's
 * topic — the rule test's sample, evaluator and reader.
 *
 * Who: governance reviewers (who decide the change) and the owners of the
 * product's domain (who asked for it). Reviewers may not read a product's
 * records, so nothing of a record leaves here: counts only — per rule how
 * many records pass, fail or make the expression err, how many records fail
 * any rule, and how many a producer's serializer would no longer write to the
 * topic (a failed WRITE rule with onFailure ERROR refuses the record, DLQ
 * sends it to the dead-letter topic). Rate-limited with the message browser
 * and audited, as every read of the records is.
 */

const WHO = "Only governance reviewers and the owners of the product's domain see what a change of its rules would do.";

export interface RuleSetImpact {
  rules: { name: string; mode: QualityRule["mode"]; onFailure: QualityRule["onFailure"]; passed: number; failed: number; errored: number }[];
  /** Records failing at least one of these rules. */
  failingRecords: number;
  /** Records a producer's serializer would not write to the topic: failing a rule checked on write whose onFailure is ERROR (refused) or DLQ (dead-lettered). */
  keptOffTopic: number;
}

/** The sample's figures as the rule test gives them (records read, evaluated, undecodable, tombstones). */
export interface RulesImpact extends Pick<RuleTestResult, "productId" | "topic" | "sampled" | "evaluated" | "undecodable" | "tombstones" | "note"> {
  changeRequestId: string;
  current: RuleSetImpact;
  proposed: RuleSetImpact;
}

const keepsOffTopic = (r: QualityRule) => r.mode !== "READ" && r.onFailure !== "NONE";

/** GET …/change-requests/{id}/rules-impact: a QUALITY_RULES change awaiting review → the current and proposed rules' counts on the newest records. */
export async function qualityRulesImpact(db: Db, acting: ActingUser, changeRequestId: string, source: RecordSource, options: RuleTestOptions): Promise<RulesImpact> {
  const actor = await loadActingActor(db, acting);
  const request = await db.productChangeRequest.findUnique({ where: { id: changeRequestId }, include: { product: { select: { id: true, domainId: true, topicName: true } } } });
  if (!request) throw new NotFoundError("Change request", changeRequestId);
  if (!hasGlobal(actor, "product:review") && !canInDomain(actor, "product:update", request.product.domainId)) throw new ForbiddenError(WHO);
  if (request.kind !== CHANGE_KINDS.QUALITY_RULES) throw new ConflictError(`This change is ${request.kind}, not a change of data-quality rules.`, "NOT_A_RULES_CHANGE");
  if (request.status !== "REQUESTED") throw new ConflictError(`This change was ${request.status.toLowerCase()} already.`, "INVALID_TRANSITION");
  const payload = qualityRulesPayload.safeParse(request.payload);
  if (!payload.success) throw new ValidationError("The change request's payload is malformed.");
  const { from, to } = payload.data;
  await consumeRateLimit(db, `browse:${actor.id}`, options.ratePerMinute, 60_000, "message-browser pages");
  const topic = request.product.topicName;
  const { records, ranges } = await sampleNewestRecords(source, topic);
  const schema = await ruleSchemaOf(db, request.productId);
  // Values decoded with every field visible to be evaluated (as observed quality does); of the failing records, only their count is kept.
  const hidden = { values: await evaluationContextOf(db, request.productId), keyMasked: true };
  const impact = (rules: readonly QualityRule[]): RuleSetImpact => {
    const all = evaluateSample(rules, schema, records, hidden);
    const offTopic = evaluateSample(rules.filter(keepsOffTopic), schema, records, hidden);
    return {
      rules: all.rules.map((c, i) => ({ name: c.name, mode: rules[i]!.mode, onFailure: rules[i]!.onFailure, passed: c.passed, failed: c.failed, errored: c.errored })),
      failingRecords: all.failingRecords,
      keptOffTopic: offTopic.failingRecords,
    };
  };
  const current = impact(from);
  const proposed = impact(to);
  const counts = evaluateSample([], schema, records, hidden);
  await recordAudit(db, actor, "changeRequest.rules-impact-evaluated", "DataProduct", request.productId, {
    changeRequestId,
    topic,
    records: records.length,
    failing: { current: current.failingRecords, proposed: proposed.failingRecords },
    ranges,
  });
  return {
    changeRequestId,
    productId: request.productId,
    topic,
    sampled: records.length,
    evaluated: counts.evaluated,
    undecodable: counts.undecodable,
    tombstones: counts.tombstones,
    current,
    proposed,
    note: records.length === 0 ? `${topic} holds no records yet: nothing to evaluate the rules on.` : counts.undecodable > 0 ? `${counts.undecodable} of ${records.length} records do not decode with the product's schema and were not evaluated.` : null,
  };
}
