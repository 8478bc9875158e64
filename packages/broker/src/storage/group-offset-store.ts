/**
 * Committed consumer-group offsets (Kafka's offsets in __consumer_offsets),
 * kept in the metadata journal: each commit call is one journal entry,
 * fsynced before it resolves, so all partitions of an OffsetCommit request
 * become durable together.
 */
import type { MetadataStore } from "./metadata.ts";

export interface OffsetCommitEntry {
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch?: number;
  metadata?: string | null;
  commitTimestamp?: bigint;
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: bigint;
}

/**
 * Committed consumer-group offsets. Each commit call is one journal entry,
 * so all partitions of an OffsetCommit request become durable together.
 */
export class GroupOffsetStore {
  constructor(private readonly meta: MetadataStore) {}

  async commit(groupId: string, offsets: readonly OffsetCommitEntry[], now = Date.now()): Promise<void> {
    if (offsets.length === 0) return;
    await this.meta.commit({
      op: "commitOffsets",
      group: groupId,
      offsets: offsets.map((o) => ({
        topic: o.topic,
        partition: o.partition,
        offset: String(o.offset),
        leaderEpoch: o.leaderEpoch ?? -1,
        metadata: o.metadata ?? "",
        commitTimestamp: String(o.commitTimestamp ?? BigInt(now)),
      })),
    });
  }

  /**
   * Committed offsets of a group. `topics` null/undefined = every topic with
   * commits; a topic without `partitions` = all its committed partitions.
   * Partitions without a commit are simply absent (OffsetFetch answers −1).
   */
  fetch(groupId: string, topics?: ReadonlyArray<{ topic: string; partitions?: readonly number[] }> | null): CommittedOffset[] {
    const g = this.meta.state.groups[groupId];
    if (!g) return [];
    const wanted = topics ?? Object.keys(g).map((topic) => ({ topic, partitions: undefined }));
    const out: CommittedOffset[] = [];
    for (const { topic, partitions } of wanted) {
      const t = g[topic];
      if (!t) continue;
      const keys = partitions ? partitions.map(String) : Object.keys(t).sort((a, b) => Number(a) - Number(b));
      for (const k of keys) {
        const o = t[k];
        if (!o) continue;
        out.push({
          topic,
          partition: Number(k),
          offset: BigInt(o.offset),
          leaderEpoch: o.leaderEpoch,
          metadata: o.metadata,
          commitTimestamp: BigInt(o.commitTimestamp),
        });
      }
    }
    return out;
  }

  get(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.fetch(groupId, [{ topic, partitions: [partition] }])[0];
  }

  hasGroup(groupId: string): boolean {
    return this.meta.state.groups[groupId] !== undefined;
  }

  /** Groups that have committed offsets. */
  listGroups(): string[] {
    return Object.keys(this.meta.state.groups).sort();
  }

  /** Removes a group's offsets; false when it had none. */
  async deleteGroup(groupId: string): Promise<boolean> {
    if (!this.hasGroup(groupId)) return false;
    await this.meta.commit({ op: "deleteGroup", group: groupId });
    return true;
  }

  /** OffsetDelete: removes some partitions' offsets of a group. */
  async deleteOffsets(groupId: string, topic: string, partitions: readonly number[]): Promise<void> {
    await this.meta.commit({ op: "deleteOffsets", group: groupId, topic, partitions: [...partitions] });
  }
}
