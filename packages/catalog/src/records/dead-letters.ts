import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { dlqTopicOf } from "../quality/rules.ts";
import { consumeRateLimit } from "../rate-limit.ts";
import { decodeValue, type DecodedValue } from "./decode-value.ts";
import { encryptedFieldsView } from "./encrypted-fields.ts";
import type { PartitionBounds, RecordSource, SourceRecord } from "./source.ts";
import { recordViewer, type RecordViewer } from "./viewer.ts";
import { MASKED_KEY, renderKey, utf8Text } from "./wire.ts";

/*
 * The DLQ panel (issue 29): a product's dead-letter topic `<topic>.dlq` as its
 * owners see it — how many records it holds and how fast it grows (from the
 * worker's DeadLetterSample rows), and the newest records with the rule each
 * one failed. Only the owning domain reads dead letters: a subscriber reads
 * the product topic, never the records its producer could not deliver; a
 * member who may browse the topic is no owner; governance reads no records at all (reading data is a grant, not a role).
 *
 * Records are read like the message browser reads them (the portal's
 * message-browser principal, by partition, never a consumer group) and their
 * values decoded and masked by the same code for the same viewer. A DLQ
 * action writes what it could not serialize — Confluent's clients write the
 * record as JSON text — so a value that does not decode with the product's
 * schema but is JSON is shown as that JSON.
 */

/** The newest records shown (and read: at most this many per partition). */
export const DEAD_LETTERS_SHOWN = 20;
const HOUR = 3_600_000;
/** The panel's chart: one point per minute bucket over this span. */
const CHART_MS = 6 * HOUR;

/** The headers Confluent's DLQ action writes (its Java DlqAction; the same names from the JavaScript one the tests register). */
export const DLQ_HEADERS = { rule: "__rule.name", mode: "__rule.mode", error: "__rule.exception", subject: "__rule.subject" } as const;

export interface DeadLetter {
  partition: number;
  offset: bigint;
  timestamp: Date;
  /** The rule the record failed, from its `__rule.name` header; null when the writer did not say. */
  rule: string | null;
  mode: string | null;
  error: string | null;
  key: ReturnType<typeof renderKey>;
  value: DecodedValue;
}

const header = (r: SourceRecord, name: string): string | null => {
  const h = r.headers.find((x) => x.key === name);
  return h?.value ? (utf8Text(h.value) ?? null) : null;
};

/** The value as the message browser decodes it; a DLQ action's JSON text of a record it could not serialize, as JSON. */
function deadValue(r: SourceRecord, decoded: DecodedValue, piiVisible: boolean): DecodedValue {
  // Unparsed JSON is not walked along the schema, so it is shown only to a viewer nothing would be masked for (owners always are).
  if (decoded.encoding !== "raw" || r.value === null || !piiVisible) return decoded;
  const text = utf8Text(r.value);
  if (text === null) return decoded;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return decoded;
    return { ...decoded, encoding: "json", wire: "plain", value: parsed as DecodedValue["value"], undecodable: null, note: "JSON text as the dead-letter action wrote it (the record failed before it was serialized)." };
  } catch {
    return decoded;
  }
}

/** The rule a dead letter failed, from its `__rule.name` header; null when the writer did not say. */
export const deadLetterRule = (r: SourceRecord): string | null => header(r, DLQ_HEADERS.rule);

/**
 * A dead letter as the viewer sees it (the panel, the redrive preview): key and value decoded and masked like the
 * message browser's; `reveal` (the panel's) says which fields are encrypted and decrypts them for a viewer entitled to PII.
 */
export function deadLetterShown(r: SourceRecord, viewer: RecordViewer, reveal: (value: DecodedValue) => DecodedValue = (value) => value): DeadLetter {
  return {
    partition: r.partition,
    offset: r.offset,
    timestamp: new Date(Number(r.timestamp)),
    rule: header(r, DLQ_HEADERS.rule),
    mode: header(r, DLQ_HEADERS.mode),
    error: header(r, DLQ_HEADERS.error),
    key: viewer.keyMasked && r.key !== null ? MASKED_KEY : renderKey(r.key),
    value: reveal(deadValue(r, decodeValue(r.value, viewer.values), viewer.piiVisible)),
  };
}

/** The newest `limit` records of one partition (reads forward from end − limit). */
async function newest(source: RecordSource, topic: string, b: PartitionBounds, limit: number): Promise<SourceRecord[]> {
  const out: SourceRecord[] = [];
  let at = b.end - BigInt(limit) < b.earliest ? b.earliest : b.end - BigInt(limit);
  while (at < b.end) {
    const r = await source.read(topic, b.partition, at, 1024 * 1024);
    out.push(...r.records.filter((x) => x.offset < b.end));
    if (r.undecodable || r.next <= at) break;
    at = r.next;
  }
  return out;
}

export interface DeadLetterOptions {
  /** Pages per user per minute: shared with the message browser. */
  ratePerMinute: number;
  /** KAPPA_SECRETS_KEY: opens the product's DEKs, so owners see encrypted fields decrypted as in the message browser (none: ciphertext). */
  secretsKey?: Buffer;
}

export async function readDeadLetters(db: Db, actor: Actor, productId: string, source: RecordSource, options: DeadLetterOptions, now = Date.now()) {
  const viewer = await recordViewer(db, actor, productId);
  // Owners (the domain's OWNER role), not every member who may browse the product topic.
  if (viewer.role !== "owner" || !canInDomain(actor, "product:update", viewer.product.domainId)) throw new ForbiddenError("Only the product's owners see its dead-letter topic.");
  const topic = dlqTopicOf(viewer.product.topicName);
  const [dlqRules, samples] = await Promise.all([
    db.dataQualityRule.count({ where: { productId, onFailure: "DLQ" } }),
    db.deadLetterSample.findMany({ where: { productId, bucket: { gte: new Date(now - CHART_MS) } }, orderBy: { bucket: "asc" }, select: { bucket: true, startOffset: true, endOffset: true, observedAt: true } }),
  ]);
  const latest = samples.at(-1) ?? null;
  const hourAgo = samples.filter((s) => s.bucket.getTime() >= now - HOUR);
  const lowest = hourAgo.reduce<bigint | null>((min, s) => (min === null || s.endOffset < min ? s.endOffset : min), null);
  const summary = {
    topic,
    /** The product has a DLQ rule: the worker provisions the topic and observes it. */
    enabled: dlqRules > 0,
    /** Records the topic holds (end − log start) at the worker's last observation; null before the first. */
    count: latest ? Number(latest.endOffset - latest.startOffset) : null,
    /** Records added over the last hour (by the samples within it). */
    addedLastHour: latest && lowest !== null ? Number(latest.endOffset - lowest) : null,
    observedAt: latest?.observedAt ?? null,
    history: samples.map((s) => ({ bucket: s.bucket, records: Number(s.endOffset - s.startOffset), endOffset: Number(s.endOffset) })),
  };
  // No DLQ rule: the message-browser principal holds no grant on the topic; nothing to read.
  if (!summary.enabled) return { ...summary, records: [] as DeadLetter[], note: "The product has no rule with the action DLQ, so it has no dead-letter topic to read." };
  await consumeRateLimit(db, `browse:${actor.id}`, options.ratePerMinute, 60_000, "message-browser pages");
  let bounds: PartitionBounds[];
  try {
    bounds = await source.bounds(topic);
  } catch (error) {
    // The rule was just approved: the worker creates the topic within a reconcile.
    if (error instanceof Error && /UNKNOWN_TOPIC|unknown topic|does not exist/i.test(error.message)) return { ...summary, records: [] as DeadLetter[], note: `${topic} is not on the cluster yet: the worker creates it with the rule.` };
    throw error;
  }
  const read = (await Promise.all(bounds.map((b) => newest(source, topic, b, DEAD_LETTERS_SHOWN)))).flat();
  read.sort((a, b) => (a.timestamp > b.timestamp ? -1 : a.timestamp < b.timestamp ? 1 : a.partition - b.partition || (a.offset > b.offset ? -1 : 1)));
  const shown = read.slice(0, DEAD_LETTERS_SHOWN);
  // A serializer's DLQ action may write the record serialized, its PII fields encrypted (the demo's does): decrypted for owners, counted.
  const encrypted = await encryptedFieldsView(db, productId, viewer, options.secretsKey);
  const records: DeadLetter[] = shown.map((r) => deadLetterShown(r, viewer, encrypted.show));
  await recordAudit(db, actor, "product.dead-letters-read", "DataProduct", productId, {
    topic,
    records: shown.length,
    ranges: bounds.map((b) => ({ partition: b.partition, offsets: shown.filter((r) => r.partition === b.partition).map((r) => r.offset.toString()) })),
    ...(viewer.encryptedPaths.length > 0 ? { decryptedFields: encrypted.decryptedFields() } : {}),
  });
  return {
    ...summary,
    // The live figure from the read itself is newer than the worker's sample.
    count: bounds.reduce((n, b) => n + Number(b.end - b.earliest), 0),
    records,
    note: null as string | null,
  };
}
