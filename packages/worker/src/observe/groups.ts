/*
 * Consumer groups of subscribers: which groups on the cluster belong to which
 * subscription (by the account's group prefix), their committed offsets and
 * lag per partition, and which of them changed since they were last written.
 * Listing, describing and fetching offsets are batched requests every cycle
 * (there is no "what changed" API for groups); rows are written only for
 * groups whose figures moved, that are still behind (their time lag grows),
 * or whose last write is older than the refresh round.
 */
import type { KafkaCluster } from "../kafka/cluster.ts";
import { partitionKey } from "../kafka/cluster.ts";
import type { CatalogView } from "./catalog-view.ts";
import { estimateTimeLagMs } from "./history.ts";
import type { TopicStates } from "./topic-state.ts";

export interface GroupRow {
  groupId: string;
  topic: string;
  subscriptionId: string;
  serviceAccountId: string;
  state: string;
  members: number;
  totalLag: bigint;
  timeLagMs: number | null;
  detail: PartitionDetail[];
}

/** One partition of a group's row; `owner`: the member the partition is assigned to (absent when none is). */
export interface PartitionDetail {
  partition: number;
  committedOffset: string | null;
  endOffset: string | null;
  lag: string | null;
  owner?: { memberId: string; clientId: string; clientHost: string };
}

const str = (v: bigint | null) => (v === null ? null : v.toString());

/** Key of a (group, topic) row. */
export const groupKey = (groupId: string, topic: string) => `${groupId}\u0000${topic}`;

export interface GroupCycle {
  /** Every (group, topic) pair a subscriber's group consumes now, written or not. */
  current: Set<string>;
  /** Rows to write this cycle. */
  rows: GroupRow[];
  /** Matched groups on the cluster. */
  groups: number;
  /** Rows due but left for the next cycle (cap). */
  waiting: number;
  /** Call once the rows are committed, so unchanged groups are not written again. */
  markWritten(): void;
}

export class GroupStates {
  /** groupKey → fingerprint of the figures last written and when */
  private readonly written = new Map<string, { fingerprint: string; at: number }>();

  /** Keys written before and no longer current: their rows must go. */
  gone(current: ReadonlySet<string>): string[] {
    return [...this.written.keys()].filter((k) => !current.has(k));
  }

  forget(keys: readonly string[]): void {
    for (const k of keys) this.written.delete(k);
  }

  async observe(cluster: KafkaCluster, catalog: CatalogView, topics: TopicStates, now: number, roundMs: number, max: number): Promise<GroupCycle> {
    const current = new Set<string>();
    const nothing = { current, rows: [], groups: 0, waiting: 0, markWritten: () => undefined };
    if (catalog.scopes.size === 0) return nothing;
    const matched = (await cluster.listGroups()).flatMap((groupId) => {
      const scope = catalog.scopeOf(groupId);
      return scope ? [{ groupId, scope }] : [];
    });
    if (matched.length === 0) return nothing;
    const [descriptions, committedByGroup] = await Promise.all([
      cluster.describeGroups(matched.map((m) => m.groupId)),
      cluster.committedOffsets(matched.map((m) => ({ groupId: m.groupId, topics: m.scope.topics }))),
    ]);
    const described = new Map(descriptions.map((d) => [d.groupId, d]));
    const candidates: { row: GroupRow; key: string; fingerprint: string; urgent: boolean; lastAt: number }[] = [];
    for (const { groupId, scope } of matched) {
      const committed = committedByGroup.get(groupId);
      if (!committed) continue;
      const description = described.get(groupId);
      // The topics this group committed on (an account may hold hundreds of subscriptions; a group reads a few of them).
      const committedTopics = new Set<string>();
      for (const k of committed.keys()) committedTopics.add(k.slice(0, k.lastIndexOf("\u0000")));
      for (const topic of committedTopics) {
        const subscriptionId = scope.topics.get(topic);
        // committedOffsets only returns the scope's topics; a topic not yet observed has no log start to measure a commit-less partition from: next cycle.
        const state = topics.get(topic);
        if (subscriptionId === undefined || !state) continue;
        const key = groupKey(groupId, topic);
        current.add(key);
        if (state.refreshedAt === 0) continue;
        let totalLag = 0n;
        let timeLag: number | null = 0;
        const owners = new Map((description?.assignment ?? []).filter((a) => a.topic === topic).map((a) => [a.partition, { memberId: a.memberId, clientId: a.clientId, clientHost: a.clientHost }]));
        const detail = state.partitions.map((p, partition): PartitionDetail => {
          const end = p.latest;
          // No commit yet: a new consumer (auto.offset.reset=earliest) starts at the log start.
          const c = committed.get(partitionKey(topic, partition)) ?? null;
          const from = c ?? p.earliest;
          const lag = end !== null && from !== null ? (end > from ? end - from : 0n) : null;
          if (lag !== null) totalLag += lag;
          if (end !== null && from !== null) {
            const t = estimateTimeLagMs(p.history, from, end, now);
            timeLag = t === null || timeLag === null ? null : Math.max(timeLag, t);
          }
          const owner = owners.get(partition);
          return { partition, committedOffset: str(c), endOffset: str(end), lag: str(lag), ...(owner ? { owner } : {}) };
        });
        const row: GroupRow = {
          groupId,
          topic,
          subscriptionId,
          serviceAccountId: scope.accountId,
          state: description?.state ?? "Unknown",
          members: description?.members ?? 0,
          totalLag,
          timeLagMs: timeLag,
          detail,
        };
        const fingerprint = `${row.state}|${row.members}|${row.subscriptionId}|${detail.map((d) => `${d.committedOffset},${d.endOffset},${d.owner?.memberId ?? ""}`).join(";")}`;
        const last = this.written.get(key);
        const urgent = !last || last.fingerprint !== fingerprint || totalLag > 0n;
        if (urgent || now - last.at >= roundMs) candidates.push({ row, key, fingerprint, urgent, lastAt: last?.at ?? 0 });
      }
    }
    candidates.sort((a, b) => Number(b.urgent) - Number(a.urgent) || a.lastAt - b.lastAt);
    const chosen = candidates.slice(0, max);
    return {
      current,
      rows: chosen.map((c) => c.row),
      groups: matched.length,
      waiting: candidates.length - chosen.length,
      markWritten: () => {
        for (const c of chosen) this.written.set(c.key, { fingerprint: c.fingerprint, at: now });
      },
    };
  }
}
