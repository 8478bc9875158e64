// The server-side assignors of KIP-848 consumer groups, the two Apache Kafka ships
// (`group.consumer.assignors` = uniform, range; uniform is the default):
//
// - uniform: every subscribed partition goes to one member, members' counts differ
//   by at most one among members with the same subscription, and a member keeps
//   what it owns in the current target when that stays balanced (sticky), so a
//   member joining or leaving moves as few partitions as possible.
// - range: per topic, the subscribed members sorted by member id get contiguous
//   ranges of partitions, the first (partitions % members) one more.
//
// Inputs and outputs key partitions by topic id (hex), as the protocol does.

export type TopicPartitions = Map<string, Set<number>>;

export interface AssignorMember {
  memberId: string;
  /** Topic ids (hex) the member subscribes to, among those that exist. */
  topics: readonly string[];
  /** The member's partitions in the current target assignment (stickiness). */
  current: TopicPartitions;
}

export interface Assignor {
  name: string;
  /** `partitions`: partition count of every subscribed topic id. */
  assign(members: readonly AssignorMember[], partitions: ReadonlyMap<string, number>): Map<string, TopicPartitions>;
}

function add(tp: TopicPartitions, topicId: string, partition: number): void {
  let s = tp.get(topicId);
  if (!s) tp.set(topicId, (s = new Set()));
  s.add(partition);
}

const byId = (a: { memberId: string }, b: { memberId: string }): number => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0);

export const rangeAssignor: Assignor = {
  name: "range",
  assign(members, partitions) {
    const out = new Map<string, TopicPartitions>(members.map((m) => [m.memberId, new Map()]));
    for (const [topicId, count] of [...partitions].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const subscribers = members.filter((m) => m.topics.includes(topicId)).sort(byId);
      if (subscribers.length === 0) continue;
      const per = Math.floor(count / subscribers.length);
      const extra = count % subscribers.length;
      let next = 0;
      subscribers.forEach((m, i) => {
        const n = per + (i < extra ? 1 : 0);
        for (let p = next; p < next + n; p++) add(out.get(m.memberId)!, topicId, p);
        next += n;
      });
    }
    return out;
  },
};

export const uniformAssignor: Assignor = {
  name: "uniform",
  assign(members, partitions) {
    const sorted = [...members].sort(byId);
    const out = new Map<string, TopicPartitions>(sorted.map((m) => [m.memberId, new Map()]));
    const count = new Map<string, number>(sorted.map((m) => [m.memberId, 0]));
    const all: Array<[string, number]> = [];
    for (const [topicId, n] of [...partitions].sort(([a], [b]) => (a < b ? -1 : 1))) for (let p = 0; p < n; p++) all.push([topicId, p]);
    // The most partitions a member may hold: its share of the partitions its subscription reaches.
    const quota = new Map<string, number>();
    for (const m of sorted) {
      const reachable = all.filter(([t]) => m.topics.includes(t)).length;
      const sharers = new Set<string>();
      for (const [t] of all) if (m.topics.includes(t)) for (const o of sorted) if (o.topics.includes(t)) sharers.add(o.memberId);
      quota.set(m.memberId, sharers.size === 0 ? 0 : Math.ceil(reachable / sharers.size));
    }
    const taken = new Set<string>();
    // Sticky: keep current partitions that are still subscribed, up to the quota.
    for (const m of sorted) {
      for (const [topicId, ps] of [...m.current].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!m.topics.includes(topicId) || !partitions.has(topicId)) continue;
        for (const p of [...ps].sort((a, b) => a - b)) {
          const key = `${topicId}:${p}`;
          if (p >= partitions.get(topicId)! || taken.has(key) || count.get(m.memberId)! >= quota.get(m.memberId)!) continue;
          taken.add(key);
          add(out.get(m.memberId)!, topicId, p);
          count.set(m.memberId, count.get(m.memberId)! + 1);
        }
      }
    }
    // The rest: each to the subscribed member holding the fewest (ties by member id).
    for (const [topicId, p] of all) {
      if (taken.has(`${topicId}:${p}`)) continue;
      let best: AssignorMember | undefined;
      for (const m of sorted) if (m.topics.includes(topicId) && (!best || count.get(m.memberId)! < count.get(best.memberId)!)) best = m;
      if (!best) continue;
      add(out.get(best.memberId)!, topicId, p);
      count.set(best.memberId, count.get(best.memberId)! + 1);
    }
    // Balance: move partitions from members above the others' count + 1 where a subscriber has fewer.
    for (let moved = true; moved; ) {
      moved = false;
      for (const from of sorted) {
        for (const [topicId, ps] of out.get(from.memberId)!) {
          for (const p of [...ps]) {
            const to = sorted.find((o) => o !== from && o.topics.includes(topicId) && count.get(o.memberId)! + 1 < count.get(from.memberId)!);
            if (!to) continue;
            ps.delete(p);
            add(out.get(to.memberId)!, topicId, p);
            count.set(from.memberId, count.get(from.memberId)! - 1);
            count.set(to.memberId, count.get(to.memberId)! + 1);
            moved = true;
          }
          if (ps.size === 0) out.get(from.memberId)!.delete(topicId);
        }
      }
    }
    return out;
  },
};

export const ASSIGNORS: ReadonlyMap<string, Assignor> = new Map([
  [uniformAssignor.name, uniformAssignor],
  [rangeAssignor.name, rangeAssignor],
]);

/** Kafka's default: the first of `group.consumer.assignors`. */
export const DEFAULT_ASSIGNOR = uniformAssignor.name;
