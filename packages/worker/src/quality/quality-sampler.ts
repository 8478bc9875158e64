/*
 * Observed quality (issue 29), for producers that do not run the rules in
 * their serializer: after each observation cycle the worker reads a bounded
 * sample of each ACTIVE product's NEW records (those written since it last
 * looked), decodes them as the message browser does, evaluates the product's
 * approved data-quality rules with the catalog's evaluator and adds the
 * outcomes to five-minute QualityObservation buckets.
 *
 * - New records only: a partition seen for the first time starts at its end.
 * - Each record counted at most once: a QualitySampleCursor per partition
 *   says where the next look starts; the counts and the cursor move in one
 *   transaction, and only if the cursor still holds the offset this run read
 *   from (another worker that got there first wins; this run's counts go).
 * - Bounded: at most `perPartition` records per partition, `perCycle` per
 *   run and `maxProducts` products per run. A partition that received more
 *   since the last look is sampled at its newest records; the ones in
 *   between are skipped, never counted late. Products beyond the run's
 *   budget are served first next time.
 */
import { decodeValue, qualityRulesOf, QUALITY_BUCKET_MS, ruleEvaluator, WHOLE_RECORD, type Db, type RuleOutcome, type ValueContext } from "@kappa/catalog";
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { partitionKey } from "../kafka/cluster.ts";
import type { ObservationCycle, ObservationStep } from "../observe/observer.ts";
import { NOW } from "../state/apply-batch.ts";

/** Buckets are kept this long: the product page's longest window is 7 days. */
const HISTORY = "8 days";

export interface QualitySamplerOptions {
  /** Records per partition per run (default 100). */
  perPartition?: number;
  /** Records per run over all products (default 2,000). */
  perCycle?: number;
  /** Products looked at per run (default 50): each costs metadata, two ListOffsets and a Fetch. */
  maxProducts?: number;
  /** Bytes fetched per partition per run (default 512 KiB). */
  partitionMaxBytes?: number;
  everyMs?: number;
}

interface Counts {
  passed: number;
  failed: number;
  errored: number;
}

type Product = { id: string; topicName: string };

export class QualitySampler implements ObservationStep {
  readonly name = "quality-sampler";
  readonly everyMs?: number;
  private readonly perPartition: number;
  private readonly perCycle: number;
  private readonly partitionMaxBytes: number;
  private readonly maxProducts: number;
  /** Where the next run starts in the product list (products past the budget go first next time). */
  private nextIndex = 0;

  constructor(options: QualitySamplerOptions = {}) {
    this.perPartition = options.perPartition ?? 100;
    this.perCycle = options.perCycle ?? 2_000;
    this.partitionMaxBytes = options.partitionMaxBytes ?? 512 * 1024;
    this.maxProducts = options.maxProducts ?? 50;
    this.everyMs = options.everyMs;
  }

  async run(cycle: ObservationCycle): Promise<void> {
    await this.sample(cycle);
  }

  /** One run; returns how many records it counted. */
  async sample(cycle: Pick<ObservationCycle, "now" | "db" | "cluster">): Promise<{ sampled: number }> {
    const { db } = cycle;
    const products = await db.dataProduct.findMany({
      where: { status: "ACTIVE", qualityRules: { some: {} }, schemaVersions: { some: { status: "APPROVED" } } },
      select: { id: true, topicName: true },
      orderBy: { id: "asc" },
    });
    // A product that lost its rules (or went) starts afresh at the end when it has them again.
    await db.qualitySampleCursor.deleteMany({ where: { productId: { notIn: products.map((p) => p.id) } } });
    await db.$executeRaw`DELETE FROM "QualityObservation" WHERE bucket < ${NOW} - ${HISTORY}::interval`;
    if (products.length === 0) return { sampled: 0 };
    const start = this.nextIndex % products.length;
    const ordered = [...products.slice(start), ...products.slice(0, start)];
    let budget = this.perCycle;
    let sampled = 0;
    let served = 0;
    for (const product of ordered) {
      if (budget <= 0 || served >= this.maxProducts) break;
      const n = await this.sampleProduct(cycle, product, budget);
      budget -= n;
      sampled += n;
      served += 1;
    }
    this.nextIndex = (start + served) % products.length;
    return { sampled };
  }

  /** Samples one product's new records; returns how many it counted. */
  private async sampleProduct(cycle: Pick<ObservationCycle, "now" | "db" | "cluster">, product: Product, budget: number): Promise<number> {
    const { db, cluster } = cycle;
    const topic = product.topicName;
    const count = (await cluster.partitionCounts([topic])).get(topic) ?? 0;
    if (count === 0) return 0;
    const spec = [{ topic, partitions: count }];
    const [latest, earliest, cursors] = await Promise.all([
      cluster.listOffsets(spec, "latest"),
      cluster.listOffsets(spec, "earliest"),
      db.qualitySampleCursor.findMany({ where: { productId: product.id } }),
    ]);
    const cursorOf = new Map(cursors.map((c) => [c.partition, c.nextOffset]));
    const fresh: { partition: number; nextOffset: bigint }[] = [];
    const reads: { partition: number; cursor: bigint; from: bigint; until: bigint }[] = [];
    let left = budget;
    for (let partition = 0; partition < count; partition += 1) {
      const end = latest.get(topic)?.[partition];
      const low = earliest.get(topic)?.[partition];
      if (end === null || end === undefined || low === null || low === undefined) continue;
      const cursor = cursorOf.get(partition);
      if (cursor === undefined) {
        fresh.push({ partition, nextOffset: end });
        continue;
      }
      if (left <= 0 || cursor >= end) continue;
      const take = BigInt(Math.min(this.perPartition, left));
      // Records deleted by retention are gone; a backlog larger than the sample is sampled at its newest end.
      const from = [cursor, low, end - take].reduce((a, b) => (b > a ? b : a));
      reads.push({ partition, cursor, from, until: end });
      left -= Number(end - from);
    }
    if (fresh.length > 0) await db.qualitySampleCursor.createMany({ data: fresh.map((f) => ({ productId: product.id, ...f })), skipDuplicates: true });
    if (reads.length === 0) return 0;

    const [rules, versions] = await Promise.all([
      qualityRulesOf(db, product.id),
      db.schemaVersion.findMany({ where: { productId: product.id, status: "APPROVED" }, orderBy: { version: "desc" }, select: { version: true, definition: true, format: true, schemaId: true } }),
    ]);
    const newest = versions[0];
    if (!newest || rules.length === 0) return 0;
    const evaluator = ruleEvaluator(rules, { format: newest.format, definition: newest.definition });
    // Decoded for evaluation only (nothing is stored): the rules see the record as its producer wrote it.
    const values: ValueContext = {
      format: newest.format,
      versions: versions.map((v) => ({ version: v.version, definition: v.definition })),
      resolveSchemaId: (id) => {
        const v = versions.find((x) => x.schemaId === id);
        return v ? { version: v.version, definition: v.definition } : null;
      },
      piiVisible: true,
      maskedPaths: new Set(),
      hasSensitiveFields: false,
    };

    const fetched = await cluster.fetchRecords(
      reads.map((r) => ({ topic, partition: r.partition, offset: r.from })),
      { partitionMaxBytes: this.partitionMaxBytes, maxWaitMs: 0, isolationLevel: 1 },
    );
    const totals = new Map<string, Counts>([[WHOLE_RECORD, { passed: 0, failed: 0, errored: 0 }], ...evaluator.rules.map((r): [string, Counts] => [r, { passed: 0, failed: 0, errored: 0 }])]);
    const moves: { partition: number; cursor: bigint; next: bigint }[] = [];
    let counted = 0;
    for (const read of reads) {
      const part = fetched.get(partitionKey(topic, read.partition));
      if (!part || part.errorCode !== 0) continue;
      const decoded = decodeFetchedRecords(part.records, read.from, part.abortedTransactions);
      let next = read.from;
      for (const record of decoded.records) {
        if (record.offset < read.from || record.offset >= read.until) continue;
        next = record.offset + 1n;
        // A tombstone deletes a key: there is no record to judge.
        if (record.value === null) continue;
        const value = decodeValue(record.value, values);
        counted += 1;
        const whole = totals.get(WHOLE_RECORD) as Counts;
        if ((value.encoding !== "avro" && value.encoding !== "json") || value.value === null) {
          whole.errored += 1;
          continue;
        }
        const outcomes = evaluator.evaluate(value.value);
        outcomes.forEach((o: RuleOutcome, i) => {
          const c = totals.get(evaluator.rules[i] ?? "");
          if (c) c[o] += 1;
        });
        if (outcomes.includes("failed")) whole.failed += 1;
        else whole.passed += 1;
      }
      // Past control batches and aborted records too, never beyond what was there when this run looked.
      if (decoded.nextOffset > next) next = decoded.nextOffset < read.until ? decoded.nextOffset : read.until;
      if (next > read.cursor) moves.push({ partition: read.partition, cursor: read.cursor, next });
    }
    if (moves.length === 0) return 0;
    const bucket = new Date(Math.floor(cycle.now / QUALITY_BUCKET_MS) * QUALITY_BUCKET_MS);
    const rows = [...totals].filter(([, c]) => c.passed + c.failed + c.errored > 0);
    const moved = await this.commit(db, product.id, moves, bucket, rows);
    return moved ? counted : 0;
  }

  /** Moves the cursors from where this run read and adds the counts, together or not at all. */
  private async commit(db: Db, productId: string, moves: { partition: number; cursor: bigint; next: bigint }[], bucket: Date, rows: [string, Counts][]): Promise<boolean> {
    try {
      await db.$transaction(async (tx) => {
        for (const m of moves) {
          const updated = await tx.qualitySampleCursor.updateMany({ where: { productId, partition: m.partition, nextOffset: m.cursor }, data: { nextOffset: m.next, updatedAt: new Date() } });
          if (updated.count !== 1) throw new CursorMoved();
        }
        if (rows.length === 0) return;
        await tx.$executeRaw`
          INSERT INTO "QualityObservation" ("productId", bucket, rule, passed, failed, errored)
          SELECT ${productId}, ${bucket}, u.r, u.p, u.f, u.e FROM unnest(${rows.map(([r]) => r)}::text[], ${rows.map(([, c]) => c.passed)}::int[], ${rows.map(([, c]) => c.failed)}::int[], ${rows.map(([, c]) => c.errored)}::int[]) AS u(r, p, f, e)
          ON CONFLICT ("productId", bucket, rule) DO UPDATE SET passed = "QualityObservation".passed + EXCLUDED.passed, failed = "QualityObservation".failed + EXCLUDED.failed, errored = "QualityObservation".errored + EXCLUDED.errored`;
      });
      return true;
    } catch (error) {
      if (error instanceof CursorMoved) return false;
      throw error;
    }
  }
}

/** Another run moved a cursor first: its counts stand, this run's are dropped. */
class CursorMoved extends Error {}
