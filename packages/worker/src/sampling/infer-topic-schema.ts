/*
 * INFER_TOPIC_SCHEMA: reads a bounded sample of an unmanaged topic's newest
 * records (at most SAMPLE_PER_PARTITION per partition, SAMPLE_TOTAL in all,
 * READ_COMMITTED, no consumer group, nothing committed) and stores the schema
 * the catalog's pure inference derives from them. The records stay in this
 * process: only the schema, the count and the explanation are written — the
 * owner asking may not read the topic's data.
 */
import { inferSchemaFromSamples, type SampleValue } from "@kappa/catalog";
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { partitionKey } from "../kafka/cluster.ts";
import { errorMessage } from "../log.ts";
import type { Change, ReconcileContext } from "../reconcile/entities.ts";

const SAMPLE_PER_PARTITION = 20;
const SAMPLE_TOTAL = 200;
const PARTITION_FETCH_BYTES = 512 * 1024;

export async function inferTopicSchema(ctx: ReconcileContext, topic: string): Promise<Change[]> {
  const row = await ctx.db.topicSchemaInference.findUnique({ where: { topic }, select: { status: true } });
  if (!row || row.status !== "PENDING") return [];
  try {
    const samples = await sampleValues(ctx, topic);
    const result = await inferSchemaFromSamples(samples, topic, async (id) => {
      const schema = await ctx.db.registrySchema.findUnique({ where: { id }, select: { format: true, normalized: true } });
      return schema ? { format: schema.format, definition: schema.normalized } : null;
    });
    await ctx.db.topicSchemaInference.update({
      where: { topic },
      data: {
        status: "DONE",
        sampled: result.sampled,
        inferred: result.inferred,
        format: result.inferred ? result.format : null,
        definition: result.inferred ? result.definition : null,
        registrySchemaId: result.inferred ? result.registrySchemaId : null,
        explanation: result.explanation,
        lastError: null,
        finishedAt: new Date(),
      },
    });
    ctx.log.info("inferred a topic's schema from sample records", { topic, sampled: result.sampled, inferred: result.inferred });
  } catch (error) {
    // The owner sees why (topic gone, no leader, refused); the task itself is done — asking again retries.
    await ctx.db.topicSchemaInference.update({ where: { topic }, data: { status: "FAILED", lastError: errorMessage(error).slice(0, 2_000), finishedAt: new Date() } });
  }
  return [];
}

async function sampleValues(ctx: ReconcileContext, topic: string): Promise<SampleValue[]> {
  const count = (await ctx.cluster.partitionCounts([topic])).get(topic);
  if (count === undefined) throw new Error(`Topic ${topic} does not exist on the cluster any more.`);
  const tp = [{ topic, partitions: count }];
  const [latest, earliest] = await Promise.all([ctx.cluster.listOffsets(tp, "latest"), ctx.cluster.listOffsets(tp, "earliest")]);
  const ends = latest.get(topic) ?? [];
  const starts = earliest.get(topic) ?? [];
  const perPartition = Math.max(1, Math.min(SAMPLE_PER_PARTITION, Math.floor(SAMPLE_TOTAL / Math.max(1, count))));
  const parts = [];
  for (let p = 0; p < count; p++) {
    const end = ends[p] ?? null;
    const start = starts[p] ?? 0n;
    if (end === null || end <= start) continue;
    const from = end - BigInt(perPartition) > start ? end - BigInt(perPartition) : start;
    parts.push({ topic, partition: p, offset: from, end });
  }
  const fetched = await ctx.cluster.fetchRecords(parts.map(({ end: _end, ...ref }) => ref), { partitionMaxBytes: PARTITION_FETCH_BYTES, maxBytes: 8 * 1024 * 1024, maxWaitMs: 0, isolationLevel: 1 });
  const out: SampleValue[] = [];
  const failed: string[] = [];
  for (const part of parts) {
    const f = fetched.get(partitionKey(topic, part.partition));
    if (!f || f.errorCode !== 0) {
      failed.push(`partition ${part.partition}: error ${f?.errorCode ?? "no answer"}`);
      continue;
    }
    const decoded = decodeFetchedRecords(f.records, part.offset, f.abortedTransactions);
    for (const r of decoded.records.slice(0, perPartition)) out.push({ value: r.value, timestamp: Number(r.timestamp) });
  }
  // Records exist but none could be read: say why instead of "the topic is empty".
  if (out.length === 0 && failed.length > 0) throw new Error(`Fetch from ${topic} failed (${failed.join("; ")}).`);
  return out.slice(0, SAMPLE_TOTAL);
}
