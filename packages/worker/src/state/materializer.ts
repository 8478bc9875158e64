/*
 * The latest-state view of every live compacted product (the seed's
 * materialised view): read from the topic by partition — no consumer group —
 * in offset order, and applied to StateEntry in the catalog database
 * (apply-batch.ts). State lives in PostgreSQL, not in this process: memory
 * holds one fetch at a time, and a restart resumes from the stored positions.
 *
 * Views are leased (StateView.leasedBy/leaseUntil) so that, with several
 * workers, each view has one writer; a dead worker's views are taken over
 * when its lease runs out. A rebuild (generation bump from the catalog)
 * clears the view and replays from the log start.
 */
import type { Db } from "@kappa/catalog";
import { decodeFetchedRecords, ErrorCode } from "@kappa/kafka-protocol";
import { partitionKey, type KafkaCluster } from "../kafka/cluster.ts";
import { errorMessage, type Logger } from "../log.ts";
import { LIVE_PRODUCT_STATUSES } from "../reconcile/diff.ts";
import { applyBatch, NOW, PositionMovedError, resetPartition, resetView } from "./apply-batch.ts";

/**
 * Bytes read per partition per round (WORKER_STATE_FETCH_BYTES). A round's
 * records are held several times over while they are applied (decoded
 * records, the hex/base64 arrays of one INSERT): 4 MiB × 4 partitions peaked
 * at a 230 MiB live heap, 1 MiB at 66 MiB, at the same records/s (bench/state-view.ts).
 */
export const DEFAULT_PARTITION_FETCH_BYTES = 1024 * 1024;

export interface StateViewOptions {
  workerId: string;
  /** How often views are checked for new records when idle. */
  pollMs: number;
  leaseMs?: number;
  /** Bytes fetched per partition per round. */
  partitionFetchBytes?: number;
  /** Time one view may take per pass before the others get their turn. */
  sliceMs?: number;
}

interface ClaimedView {
  productId: string;
  topic: string;
  generation: number;
  appliedGeneration: number;
}

export interface PassSummary {
  views: number;
  records: number;
  caughtUp: boolean;
}

export class StateMaterializer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<PassSummary> | null = null;
  private stopped = false;
  lastError: string | null = null;

  constructor(
    private readonly db: Db,
    private readonly cluster: KafkaCluster,
    private readonly options: StateViewOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      void this.runNow().then((s) => {
        if (this.stopped) return;
        // More to read: go on at once; otherwise wait for new records.
        this.timer = setTimeout(tick, s.caughtUp ? this.options.pollMs : 0);
      });
    };
    tick();
  }

  runNow(): Promise<PassSummary> {
    this.running ??= this.pass()
      .then((s) => {
        this.lastError = null;
        return s;
      })
      .catch((error: unknown) => {
        this.lastError = errorMessage(error);
        this.log.warn("latest-state view pass failed", { error: this.lastError });
        return { views: 0, records: 0, caughtUp: true };
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Runs passes until every view has caught up with its topic (tests, bench). */
  async catchUp(maxPasses = 10_000): Promise<void> {
    for (let i = 0; i < maxPasses; i++) {
      const s = await this.runNow();
      if (this.lastError) throw new Error(this.lastError);
      if (s.caughtUp) return;
    }
  }

  /** New compacted products get a view row; views of products no longer live stop being leased. */
  private async syncViews(): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO "StateView" ("productId", topic, "updatedAt")
      SELECT p.id, p."topicName", ${NOW} FROM "DataProduct" AS p
       WHERE p."cleanupPolicy" = 'compact' AND p.status::text = ANY(${[...LIVE_PRODUCT_STATUSES]}::text[])
      ON CONFLICT ("productId") DO NOTHING`;
  }

  private async claim(): Promise<ClaimedView[]> {
    const leaseMs = this.options.leaseMs ?? 30_000;
    return this.db.$queryRaw<ClaimedView[]>`
      UPDATE "StateView" AS v SET "leasedBy" = ${this.options.workerId}, "leaseUntil" = ${NOW} + make_interval(secs => ${leaseMs / 1000})
       WHERE v."productId" IN (
         SELECT sv."productId" FROM "StateView" AS sv JOIN "DataProduct" AS p ON p.id = sv."productId"
          WHERE p."cleanupPolicy" = 'compact' AND p.status::text = ANY(${[...LIVE_PRODUCT_STATUSES]}::text[])
            AND (sv."leaseUntil" IS NULL OR sv."leaseUntil" < ${NOW} OR sv."leasedBy" = ${this.options.workerId})
          ORDER BY sv."productId"
          FOR UPDATE OF sv SKIP LOCKED)
      RETURNING v."productId", v.topic, v.generation, v."appliedGeneration"`;
  }

  private async pass(): Promise<PassSummary> {
    await this.syncViews();
    const views = await this.claim();
    let records = 0;
    let caughtUp = true;
    for (const view of views) {
      if (this.stopped) break;
      try {
        const r = await this.advance(view);
        records += r.records;
        if (!r.caughtUp) caughtUp = false;
      } catch (error) {
        if (error instanceof PositionMovedError) {
          // Another worker applied it (a lease we lost); it owns the view now.
          this.log.warn("latest-state view moved on under another worker", { product: view.productId, error: error.message });
          continue;
        }
        const message = errorMessage(error).slice(0, 2000);
        await this.db.stateView.update({ where: { productId: view.productId }, data: { status: "ERROR", lastError: message } }).catch(() => undefined);
        this.log.warn("latest-state view could not advance", { product: view.productId, topic: view.topic, error: message });
      }
    }
    return { views: views.length, records, caughtUp };
  }

  /** Reads and applies until the view has caught up or its time slice is used. */
  private async advance(view: ClaimedView): Promise<{ records: number; caughtUp: boolean }> {
    if (view.generation !== view.appliedGeneration) {
      await resetView(this.db, view.productId, view.generation);
      this.log.info("latest-state view (re)built from the log start", { product: view.productId, generation: view.generation });
    }
    const count = (await this.cluster.partitionCounts([view.topic])).get(view.topic);
    if (count === undefined) return { records: 0, caughtUp: true }; // topic not created yet
    await this.db.stateViewPartition.createMany({ data: Array.from({ length: count }, (_, partition) => ({ productId: view.productId, partition })), skipDuplicates: true });
    const deadline = Date.now() + (this.options.sliceMs ?? 5_000);
    let records = 0;
    for (;;) {
      const positions = await this.db.stateViewPartition.findMany({ where: { productId: view.productId }, orderBy: { partition: "asc" } });
      const fetched = await this.cluster.fetchRecords(
        positions.map((p) => ({ topic: view.topic, partition: p.partition, offset: p.nextOffset })),
        { partitionMaxBytes: this.options.partitionFetchBytes ?? DEFAULT_PARTITION_FETCH_BYTES, maxBytes: 16 * 1024 * 1024, isolationLevel: 1 },
      );
      let progressed = false;
      let behind = false;
      for (const p of positions) {
        const f = fetched.get(partitionKey(view.topic, p.partition));
        if (!f) continue;
        if (f.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          // Below the log start (records deleted) or past the end (topic re-created): this partition starts over.
          const restartAt = f.logStartOffset >= 0n ? f.logStartOffset : 0n;
          const dropped = await resetPartition(this.db, view.productId, p.partition, restartAt);
          this.log.warn("latest-state view partition restarted: its position is out of the topic's range", { product: view.productId, partition: p.partition, from: p.nextOffset.toString(), restartAt: restartAt.toString(), dropped });
          progressed = true;
          continue;
        }
        if (f.errorCode !== 0) throw new Error(`Fetch ${view.topic}-${p.partition}: error ${f.errorCode}`);
        const decoded = decodeFetchedRecords(f.records, p.nextOffset, f.abortedTransactions);
        if (decoded.undecodable && decoded.records.length === 0) {
          throw new Error(`${view.topic}-${p.partition} at offset ${decoded.undecodable.offset}: ${decoded.undecodable.reason}; the view cannot go past it`);
        }
        const next = decoded.nextOffset > p.nextOffset ? decoded.nextOffset : p.nextOffset;
        if (next > p.nextOffset || f.highWatermark !== p.endOffset) {
          await applyBatch(this.db, view, p.partition, p.nextOffset, next, f.highWatermark, decoded.records);
          records += decoded.records.length;
          if (next > p.nextOffset) progressed = true;
        }
        if (next < f.highWatermark) behind = true;
      }
      if (!behind) {
        await this.db.$executeRaw`UPDATE "StateView" SET status = 'LIVE', "updatedAt" = ${NOW} WHERE "productId" = ${view.productId} AND status <> 'LIVE' AND "lastError" IS NULL`;
        return { records, caughtUp: true };
      }
      if (!progressed || Date.now() > deadline || this.stopped) return { records, caughtUp: !progressed };
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    // Give the leases back so another worker continues at once.
    await this.db.stateView.updateMany({ where: { leasedBy: this.options.workerId }, data: { leaseUntil: null, leasedBy: null } }).catch(() => undefined);
  }
}
