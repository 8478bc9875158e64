/*
 * Time lag per partition by reading the record at the group's committed
 * offset — the next record it will consume — and taking the age of its
 * timestamp: lag_ms = now − timestamp(record at committed offset). This is
 * exact to the producer's clock (CreateTime) or the broker's (LogAppendTime),
 * where the observer's interpolation from offset/time samples is only as good
 * as its history (a lower bound once the consumer is behind all of it).
 *
 * Runs as an observation step over the group rows the cycle wrote while they
 * lag. One Fetch per leader with a small size (the first batch holds the
 * record), and a cache keyed by (topic, partition, offset): while a consumer
 * is stuck, its record is read once. A partition that cannot be read this
 * cycle keeps the observer's interpolated estimate.
 */
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { partitionKey } from "../kafka/cluster.ts";
import type { ObservationCycle, ObservationStep } from "../observe/observer.ts";

const MINUTE = 60_000;
const MAX_READS_PER_CYCLE = 2_000;
const CACHE_MAX = 100_000;

export class TimeLagReader implements ObservationStep {
  readonly name = "time-lag-read";
  private readonly cache = new Map<string, bigint>();

  private remember(key: string, ts: bigint): void {
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value ?? "");
    this.cache.set(key, ts);
  }

  async run(cycle: ObservationCycle): Promise<void> {
    const lagging = cycle.groups.filter((g) => g.totalLag > 0n);
    if (lagging.length === 0) return;
    // The offset each lagging partition reads next: its commit, or the log start without one.
    const wanted = new Map<string, { topic: string; partition: number; offset: bigint }>();
    for (const g of lagging) {
      const state = cycle.states.get(g.topic);
      for (const d of g.detail) {
        if (d.lag === null || d.lag === "0") continue;
        const offset = d.committedOffset !== null ? BigInt(d.committedOffset) : (state?.partitions[d.partition]?.earliest ?? null);
        if (offset === null) continue;
        const key = `${partitionKey(g.topic, d.partition)}\u0000${offset}`;
        if (!this.cache.has(key) && wanted.size < MAX_READS_PER_CYCLE) wanted.set(key, { topic: g.topic, partition: d.partition, offset });
      }
    }
    if (wanted.size > 0) {
      const fetched = await cycle.cluster.fetchRecords([...wanted.values()], { partitionMaxBytes: 64 * 1024, maxBytes: 8 * 1024 * 1024 });
      for (const [key, w] of wanted) {
        const f = fetched.get(partitionKey(w.topic, w.partition));
        if (!f || f.errorCode !== 0) continue;
        // The first record at or after the offset (compaction or markers may leave gaps).
        const first = decodeFetchedRecords(f.records, w.offset).records[0];
        if (first) this.remember(key, first.timestamp);
      }
    }
    const rows: { groupId: string; topic: string; detail: string; lag: bigint | null }[] = [];
    for (const g of lagging) {
      const state = cycle.states.get(g.topic);
      let max: number | null = 0;
      let exact = true;
      const detail = g.detail.map((d) => {
        if (d.lag === null || d.lag === "0") return { ...d, timeLagMs: d.lag === null ? null : 0 };
        const offset = d.committedOffset !== null ? BigInt(d.committedOffset) : (state?.partitions[d.partition]?.earliest ?? null);
        const ts = offset === null ? undefined : this.cache.get(`${partitionKey(g.topic, d.partition)}\u0000${offset}`);
        if (ts === undefined) {
          exact = false;
          return { ...d, timeLagMs: null };
        }
        const ms = Math.max(0, cycle.now - Number(ts));
        max = max === null ? null : Math.max(max, ms);
        return { ...d, timeLagMs: ms, timeLagMethod: "read" };
      });
      // Partitions not read this cycle: the group-level figure stays the observer's estimate.
      rows.push({ groupId: g.groupId, topic: g.topic, detail: JSON.stringify(detail), lag: exact && max !== null ? BigInt(max) : null });
    }
    const bucket = new Date(Math.floor(cycle.now / MINUTE) * MINUTE);
    for (let i = 0; i < rows.length; i += 500) {
      const part = rows.slice(i, i + 500);
      await cycle.db.$executeRaw`
        UPDATE "ConsumerGroupObservation" AS g
           SET "partitionDetail" = v.detail::jsonb, "timeLagMs" = COALESCE(v.lag, g."timeLagMs")
          FROM unnest(${part.map((r) => r.groupId)}::text[], ${part.map((r) => r.topic)}::text[], ${part.map((r) => r.detail)}::text[], ${part.map((r) => r.lag)}::bigint[]) AS v(g, t, detail, lag)
         WHERE g."groupId" = v.g AND g.topic = v.t`;
      const exact = part.filter((r) => r.lag !== null);
      if (exact.length > 0) {
        await cycle.db.$executeRaw`
          UPDATE "ConsumerGroupObservationSample" AS s SET "timeLagMs" = v.lag
            FROM unnest(${exact.map((r) => r.groupId)}::text[], ${exact.map((r) => r.topic)}::text[], ${exact.map((r) => r.lag)}::bigint[]) AS v(g, t, lag)
           WHERE s."groupId" = v.g AND s.topic = v.t AND s.bucket = ${bucket}`;
      }
    }
  }
}


