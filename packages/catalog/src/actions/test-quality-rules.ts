import { loadActingActor, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { ruleEvaluator, type RuleOutcome } from "../quality/evaluate.ts";
import { qualityRulesInput, type QualityRule } from "../quality/rules.ts";
import { checkRulesFor, ruleSchemaOf } from "../quality/store.ts";
import { consumeRateLimit } from "../rate-limit.ts";
import { decodeValue, type DecodedValue } from "../records/decode-value.ts";
import type { PartitionBounds, RecordSource, SourceRecord } from "../records/source.ts";
import { recordViewer } from "../records/viewer.ts";
import { MASKED_KEY, renderKey } from "../records/wire.ts";

/*
 * The rule test (issue 29): before anyone submits, an owner evaluates the
 * rules as edited — unsaved — against the newest records of the product's
 * topic, with the catalog's one evaluator (quality/evaluate.ts: the same
 * semantics as observed quality and the client — a rule fails a record only
 * when it is false; an expression that errs lets it pass and is counted
 * apart).
 *
 * Who: the owners of the product's domain (OWNER role, `product:update`),
 * those who may submit rules. A member of the domain, a subscriber, governance
 * and admins may not: the test reads the product's records, and only its
 * owners may both read them and change its rules.
 *
 * How the records are read: as the message browser reads a product's records
 * (the portal's message-browser principal, by partition, no consumer group,
 * rate-limited with the browser's pages, audited). The worker's sampling
 * (INFER_TOPIC_SCHEMA) is for unmanaged topics only and keeps records in the
 * worker; a product's records are read with the message browser's access
 * rules, and its owners may read them. Failing records are shown decoded and
 * masked by the message browser's code for this viewer (recordViewer).
 */

const OWNERS_ONLY = "Only owners of the product's domain test its data-quality rules: the test reads the product's records.";

export const testQualityRulesInput = qualityRulesInput.strict();

/** Records read at most (the newest, spread over the partitions). */
export const RULE_TEST_SAMPLE = 200;
/** Newest records read per partition at most. */
const RULE_TEST_PER_PARTITION = 50;
/** Failing records shown at most (the newest). */
export const RULE_TEST_SHOWN = 20;

export interface RuleTestOptions {
  /** Reads per user per minute: shared with the message browser. */
  ratePerMinute: number;
}

export interface RuleTestRecord {
  partition: number;
  offset: bigint;
  timestamp: Date;
  key: ReturnType<typeof renderKey>;
  value: DecodedValue;
  /** The rules this record fails (false), in the rules' order. */
  failed: string[];
}

export interface RuleTestResult {
  productId: string;
  topic: string;
  /** Records read. */
  sampled: number;
  /** Records evaluated (read and decoded with the product's schema). */
  evaluated: number;
  /** Records that did not decode: not evaluated (observed quality counts them as failing the whole record). */
  undecodable: number;
  /** Tombstones (no value): not evaluated. */
  tombstones: number;
  rules: { name: string; passed: number; failed: number; errored: number }[];
  /** Records failing at least one rule, newest first, at most RULE_TEST_SHOWN. */
  failing: RuleTestRecord[];
  /** Records failing at least one rule, all of the sample. */
  failingRecords: number;
  note: string | null;
}

/** The newest `limit` records of one partition (reads forward from end − limit). */
async function newest(source: RecordSource, topic: string, b: PartitionBounds, limit: number): Promise<SourceRecord[]> {
  const out: SourceRecord[] = [];
  let at = b.end - BigInt(limit) < b.earliest ? b.earliest : b.end - BigInt(limit);
  while (at < b.end) {
    const r = await source.read(topic, b.partition, at, 1024 * 1024);
    out.push(...r.records.filter((x) => x.offset >= at && x.offset < b.end));
    if (r.undecodable || r.next <= at) break;
    at = r.next;
  }
  return out;
}

const newestFirst = (a: SourceRecord, b: SourceRecord) => (a.timestamp > b.timestamp ? -1 : a.timestamp < b.timestamp ? 1 : a.partition - b.partition || (a.offset > b.offset ? -1 : 1));

/**
 * The sample rules are tried on: the newest RULE_TEST_SAMPLE records of the topic, at most
 * RULE_TEST_PER_PARTITION per partition, newest first; with the offset range read per partition
 * (for the audit log).
 */
export async function sampleNewestRecords(source: RecordSource, topic: string): Promise<{ records: SourceRecord[]; ranges: { partition: number; from: string | null; to: string | null }[] }> {
  const bounds = (await source.bounds(topic)).filter((b) => b.end > b.earliest);
  const perPartition = Math.max(1, Math.min(RULE_TEST_PER_PARTITION, Math.floor(RULE_TEST_SAMPLE / Math.max(1, bounds.length))));
  const records = (await Promise.all(bounds.map((b) => newest(source, topic, b, perPartition)))).flat().sort(newestFirst).slice(0, RULE_TEST_SAMPLE);
  const ranges = bounds.map((b) => {
    const offsets = records.filter((r) => r.partition === b.partition).map((r) => r.offset);
    return { partition: b.partition, from: offsets.length ? offsets.reduce((m, o) => (o < m ? o : m)).toString() : null, to: offsets.length ? offsets.reduce((m, o) => (o > m ? o : m)).toString() : null };
  });
  return { records, ranges };
}

/** POST …/rules/test: `{ rules: [...] }` (the whole edited list) → counts per rule and the failing records as this viewer may see them. */
export async function testQualityRules(db: Db, acting: ActingUser, productId: string, rawInput: unknown, source: RecordSource, options: RuleTestOptions): Promise<RuleTestResult> {
  const input = parseInput(testQualityRulesInput, rawInput);
  const actor = await loadActingActor(db, acting);
  // Only the domain's owners (before anything about the product's state is said), then readable products only (a draft has no records).
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { domainId: true } });
  if (!product) throw new NotFoundError("Data product", productId);
  if (!canInDomain(actor, "product:update", product.domainId)) throw new ForbiddenError(OWNERS_ONLY);
  const viewer = await recordViewer(db, actor, productId);
  if (viewer.role !== "owner") throw new ForbiddenError(OWNERS_ONLY);
  // The checks a submission gets (CEL compiles, fields exist, the policy's limits), with the same per-rule fields.
  await checkRulesFor(db, productId, input.rules);
  await consumeRateLimit(db, `browse:${actor.id}`, options.ratePerMinute, 60_000, "message-browser pages");
  const topic = viewer.product.topicName;
  const { records: read, ranges } = await sampleNewestRecords(source, topic);
  const result = evaluateSample(input.rules, await ruleSchemaOf(db, productId), read, viewer);
  await recordAudit(db, actor, "product.rules-tested", "DataProduct", productId, { topic, rules: input.rules.map((r) => r.name), records: read.length, failing: result.failingRecords, ranges });
  return {
    productId,
    topic,
    ...result,
    note: read.length === 0 ? `${topic} holds no records yet: nothing to test the rules against.` : result.undecodable > 0 ? `${result.undecodable} of ${read.length} records do not decode with the product's schema and were not evaluated.` : null,
  };
}

/**
 * Evaluates rules against records (newest first) as observed quality does —
 * values decoded with every field visible — and shows the failing ones as the
 * viewer sees them in the message browser.
 */
export function evaluateSample(
  rules: readonly QualityRule[],
  schema: { format: "AVRO" | "JSON_SCHEMA"; definition: string } | null,
  records: readonly SourceRecord[],
  viewer: Pick<Awaited<ReturnType<typeof recordViewer>>, "values" | "keyMasked">,
): Omit<RuleTestResult, "productId" | "topic" | "note"> {
  const evaluator = ruleEvaluator(rules, schema);
  const counts = rules.map((r) => ({ name: r.name, passed: 0, failed: 0, errored: 0 }));
  const clear = { ...viewer.values, piiVisible: true };
  const failing: RuleTestRecord[] = [];
  let evaluated = 0;
  let undecodable = 0;
  let tombstones = 0;
  let failingRecords = 0;
  for (const r of records) {
    // A tombstone deletes a key: there is no record to judge (as observed quality skips it).
    if (r.value === null) {
      tombstones++;
      continue;
    }
    const decoded = decodeValue(r.value, clear);
    if ((decoded.encoding !== "avro" && decoded.encoding !== "json") || decoded.value === null) {
      undecodable++;
      continue;
    }
    evaluated++;
    const outcomes: RuleOutcome[] = evaluator.evaluate(decoded.value);
    const failed: string[] = [];
    outcomes.forEach((o, i) => {
      const c = counts[i];
      if (!c) return;
      c[o]++;
      if (o === "failed") failed.push(c.name);
    });
    if (failed.length === 0) continue;
    failingRecords++;
    if (failing.length < RULE_TEST_SHOWN) {
      failing.push({
        partition: r.partition,
        offset: r.offset,
        timestamp: new Date(Number(r.timestamp)),
        key: viewer.keyMasked && r.key !== null ? MASKED_KEY : renderKey(r.key),
        // The message browser's decoding and masking for this viewer.
        value: viewer.values.piiVisible ? decoded : decodeValue(r.value, viewer.values),
        failed,
      });
    }
  }
  return { sampled: records.length, evaluated, undecodable, tombstones, rules: counts, failing, failingRecords };
}
