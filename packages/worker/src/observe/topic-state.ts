/*
 * The observer's memory of every observed topic: per partition the last
 * figures read and the offset history, plus when the topic's full figures were
 * last refreshed and whether its end offsets moved since. Only the end offsets
 * are read for every partition in every cycle (one ListOffsets per leader);
 * the other figures (log start, local start, tiered offset, bytes) are read
 * for the topics that moved, the topics never seen, and a rotating share of
 * the rest, so each topic is fully refreshed at least once per refresh round.
 */
import { OffsetSeries, ratePerSecond } from "./history.ts";

export interface PartitionState {
  latest: bigint | null;
  earliest: bigint | null;
  earliestLocal: bigint | null;
  latestTiered: bigint | null;
  localBytes: bigint | null;
  remoteBytes: bigint | null;
  history: OffsetSeries;
}

export interface TopicState {
  topic: string;
  productId: string;
  partitions: PartitionState[];
  /** Last full refresh (ms); 0 = never. */
  refreshedAt: number;
  /** The end offsets moved (or the partition count changed) since the last refresh. */
  moved: boolean;
  /** Throughput written at the last refresh; a topic that was moving is refreshed again so its rate falls back to 0 promptly. */
  lastRate: number | null;
}

/** Samples kept per partition before thinning (see OffsetSeries). */
const HISTORY_SAMPLES = 120;

function emptyPartition(): PartitionState {
  return { latest: null, earliest: null, earliestLocal: null, latestTiered: null, localBytes: null, remoteBytes: null, history: new OffsetSeries(HISTORY_SAMPLES) };
}

export class TopicStates {
  readonly byTopic = new Map<string, TopicState>();

  get size(): number {
    return this.byTopic.size;
  }

  get(topic: string): TopicState | undefined {
    return this.byTopic.get(topic);
  }

  /** Creates or resizes a topic's state to `partitions` (Kafka only grows topics; a re-created smaller one starts over). */
  ensure(topic: string, productId: string, partitions: number): TopicState {
    let state = this.byTopic.get(topic);
    if (!state) {
      state = { topic, productId, partitions: [], refreshedAt: 0, moved: true, lastRate: null };
      this.byTopic.set(topic, state);
    }
    state.productId = productId;
    if (state.partitions.length !== partitions) {
      state.partitions = partitions < state.partitions.length ? Array.from({ length: partitions }, emptyPartition) : [...state.partitions, ...Array.from({ length: partitions - state.partitions.length }, emptyPartition)];
      state.moved = true;
    }
    return state;
  }

  delete(topic: string): void {
    this.byTopic.delete(topic);
  }

  /** Records the end offsets read this cycle; marks topics whose end moved. */
  recordLatest(state: TopicState, partition: number, latest: bigint | null, now: number): void {
    const p = state.partitions[partition];
    if (!p) return;
    if (p.latest !== latest) state.moved = true;
    p.latest = latest;
    if (latest !== null) p.history.add(now, latest);
  }

  /**
   * The topics to refresh this cycle, most urgent first, at most `max`:
   * never refreshed, then moved (or still showing a rate), then those whose
   * last refresh is older than `roundMs`, oldest first.
   */
  due(now: number, roundMs: number, max: number): { topics: TopicState[]; waiting: number } {
    const never: TopicState[] = [];
    const moved: TopicState[] = [];
    const stale: TopicState[] = [];
    for (const s of this.byTopic.values()) {
      if (s.refreshedAt === 0) never.push(s);
      else if (s.moved || (s.lastRate !== null && s.lastRate !== 0)) moved.push(s);
      else if (now - s.refreshedAt >= roundMs) stale.push(s);
    }
    // Oldest refresh first in each class, so a busy cluster (every topic moving) still rotates through all of them.
    moved.sort((a, b) => a.refreshedAt - b.refreshedAt);
    stale.sort((a, b) => a.refreshedAt - b.refreshedAt);
    const all = [...never, ...moved, ...stale];
    return { topics: all.slice(0, max), waiting: Math.max(0, all.length - max) };
  }

  /** Throughput of a topic: the sum over partitions, null while any partition lacks two samples. */
  rate(state: TopicState, now: number): number | null {
    let total = 0;
    for (const p of state.partitions) {
      const r = ratePerSecond(p.history, now);
      if (r === null) return null;
      total += r;
    }
    return total;
  }
}
