// One consumer group of KIP-848's consumer protocol (`group.protocol=consumer`),
// following Kafka's GroupMetadataManager.consumerGroupHeartbeat, ConsumerGroup and
// CurrentAssignmentBuilder:
//
//  - The group epoch goes up whenever what the assignment depends on changes: a member
//    joins or leaves, a subscription or the chosen assignor changes, a subscribed
//    topic appears, disappears or gains partitions. A new target assignment is then
//    computed by the server-side assignor (uniform or range) and the assignment epoch
//    set to the group epoch.
//  - Each member moves to its target at its own pace: partitions it must give up are
//    taken away first (UNREVOKED_PARTITIONS: it keeps its epoch until a heartbeat shows
//    it no longer owns them, within its rebalance timeout, or it is fenced); only then
//    does it get the target epoch and the target partitions that no other member still
//    owns (UNRELEASED_PARTITIONS until the others release theirs). A partition is
//    therefore never owned by two members.
//  - A member that sends no heartbeat within `group.consumer.session.timeout.ms` is
//    removed. A static member (instance id) leaving with epoch −2 keeps its assignment
//    until then, and a new member with the same instance id takes it over as it stands.
//
// Group state is in memory: after a broker restart the members' heartbeats answer
// UNKNOWN_MEMBER_ID and they rejoin with epoch 0 (committed offsets are durable).
import { randomUUID } from "node:crypto";
import { runInNewContext } from "node:vm";
import { ErrorCode } from "@kappa/kafka-protocol";
import { ASSIGNORS, DEFAULT_ASSIGNOR, type TopicPartitions } from "./assignors.ts";

export type ConsumerGroupState = "Empty" | "Assigning" | "Reconciling" | "Stable" | "Dead";
export type MemberState = "STABLE" | "UNREVOKED_PARTITIONS" | "UNRELEASED_PARTITIONS";

export const LEAVE_GROUP_EPOCH = -1;
export const LEAVE_GROUP_STATIC_EPOCH = -2;

export interface TopicInfo {
  name: string;
  /** Kafka's text form of the topic id. */
  id: string;
  partitionCount: number;
}

/** The topics the group can see (the broker's logs). */
export interface TopicCatalog {
  topics(): TopicInfo[];
}

export interface ConsumerMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  /** Whether the member may see a topic (DESCRIBE), for what its regex matches. */
  mayDescribe: (topic: string) => boolean;
  assigned: TopicPartitions;
  pendingRevocation: TopicPartitions;
  sessionTimer: NodeJS.Timeout | null;
  rebalanceTimer: NodeJS.Timeout | null;
}

export interface HeartbeatRequest {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  /** null = unchanged since the last heartbeat. */
  ownedTopicPartitions: Array<{ topicId: string; partitions: number[] }> | null;
  clientId: string;
  clientHost: string;
  mayDescribe: (topic: string) => boolean;
}

export interface HeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** null = not sent (unchanged). */
  assignment: Array<{ topicId: string; partitions: number[] }> | null;
}

export interface ConsumerGroupContext {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  topics: TopicCatalog;
  log: (msg: string) => void;
}

/** A heartbeat refused with a Kafka error. */
export class HeartbeatError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "HeartbeatError";
  }
}

/** A regex that cannot run (invalid, or too slow: JavaScript's engine backtracks where Kafka's RE2/J does not). */
const REGEX_TIME_LIMIT_MS = 100;

/** The topic names a subscription regex matches in full, as Kafka matches (Pattern.matcher(topic).matches()). */
export function matchRegex(regex: string, names: readonly string[]): string[] {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${regex})$`);
  } catch (err) {
    throw new HeartbeatError(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${(err as Error).message}.`);
  }
  try {
    return runInNewContext("names.filter((n) => re.test(n))", { names: [...names], re }, { timeout: REGEX_TIME_LIMIT_MS }) as string[];
  } catch {
    throw new HeartbeatError(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex \`${regex}\` takes too long to evaluate.`);
  }
}

function cloneTp(tp: TopicPartitions): TopicPartitions {
  return new Map([...tp].map(([t, s]) => [t, new Set(s)]));
}

function sameTp(a: TopicPartitions, b: TopicPartitions): boolean {
  const norm = (tp: TopicPartitions) => [...tp].filter(([, s]) => s.size > 0);
  const na = norm(a);
  if (na.length !== norm(b).length) return false;
  return na.every(([t, s]) => b.get(t)?.size === s.size && [...s].every((p) => b.get(t)!.has(p)));
}

function has(tp: TopicPartitions, topicId: string, p: number): boolean {
  return tp.get(topicId)?.has(p) ?? false;
}

function addTo(tp: TopicPartitions, topicId: string, p: number): void {
  let s = tp.get(topicId);
  if (!s) tp.set(topicId, (s = new Set()));
  s.add(p);
}

export function tpToWire(tp: TopicPartitions): Array<{ topicId: string; partitions: number[] }> {
  return [...tp].filter(([, s]) => s.size > 0).map(([topicId, s]) => ({ topicId, partitions: [...s].sort((a, b) => a - b) }));
}

export class ConsumerGroup {
  state: ConsumerGroupState = "Empty";
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerMember>();
  /** instance id → member id. */
  readonly staticMembers = new Map<string, string>();
  /** The target assignment of the assignment epoch, by member id. */
  readonly target = new Map<string, TopicPartitions>();
  /** Partition counts of the subscribed topics the target was computed from (topic id → count). */
  private subscriptionMetadata = new Map<string, number>();
  /** The assignor of the last target assignment. */
  assignorName = DEFAULT_ASSIGNOR;
  private dead = false;

  constructor(
    readonly groupId: string,
    private readonly ctx: ConsumerGroupContext,
  ) {}

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  // ---- the heartbeat ---------------------------------------------------------

  heartbeat(req: HeartbeatRequest): HeartbeatResult {
    if (this.dead) throw new HeartbeatError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `Group ${this.groupId} is being deleted.`);
    if (req.memberEpoch === LEAVE_GROUP_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_EPOCH) return this.leave(req);

    let member: ConsumerMember;
    let bump = false;
    if (req.memberEpoch === 0) {
      const joined = this.join(req);
      member = joined.member;
      bump = joined.isNew;
    } else {
      const m = this.members.get(req.memberId);
      if (!m || m.memberEpoch === LEAVE_GROUP_STATIC_EPOCH) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`);
      if (req.instanceId !== null && m.instanceId !== null && req.instanceId !== m.instanceId) {
        throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Member ${req.memberId} holds instance id ${m.instanceId}, not ${req.instanceId}.`);
      }
      this.checkEpoch(m, req);
      member = m;
    }

    // What the member tells us (null fields are unchanged).
    member.clientId = req.clientId;
    member.mayDescribe = req.mayDescribe;
    member.clientHost = req.clientHost;
    if (req.rackId !== null) member.rackId = req.rackId;
    if (req.rebalanceTimeoutMs >= 0) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.subscribedTopicNames !== null) {
      const names = [...new Set(req.subscribedTopicNames)].sort();
      if (names.join("\u0000") !== member.subscribedTopicNames.join("\u0000")) bump = true;
      member.subscribedTopicNames = names;
    }
    if (req.subscribedTopicRegex !== null) {
      const regex = req.subscribedTopicRegex === "" ? null : req.subscribedTopicRegex;
      if (regex !== null) matchRegex(regex, []); // refuse an invalid regex before anything changes
      if (regex !== member.subscribedTopicRegex) bump = true;
      member.subscribedTopicRegex = regex;
    }
    if (req.serverAssignor !== null && req.serverAssignor !== member.serverAssignor) {
      member.serverAssignor = req.serverAssignor;
      bump = true;
    }

    // Topics appearing, disappearing or growing change the assignment too.
    const metadata = this.computeSubscriptionMetadata();
    if (!sameCounts(metadata, this.subscriptionMetadata)) bump = true;
    if (bump) this.groupEpoch++;
    if (this.groupEpoch > this.assignmentEpoch) this.computeTarget(metadata);

    const before = { epoch: member.memberEpoch, assigned: cloneTp(member.assigned) };
    this.reconcile(member, req.ownedTopicPartitions);
    this.touch(member);
    this.updateState();

    const changed = req.memberEpoch === 0 || before.epoch !== member.memberEpoch || !sameTp(before.assigned, member.assigned);
    const ownedDiffers = req.ownedTopicPartitions !== null && !sameTp(toTp(req.ownedTopicPartitions), member.assigned);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.ctx.heartbeatIntervalMs,
      assignment: changed || ownedDiffers ? tpToWire(member.assigned) : null,
    };
  }

  private join(req: HeartbeatRequest): { member: ConsumerMember; isNew: boolean } {
    const fresh = (memberId: string): ConsumerMember => ({
      memberId,
      instanceId: req.instanceId,
      rackId: req.rackId,
      clientId: req.clientId,
      clientHost: req.clientHost,
      memberEpoch: 0,
      previousMemberEpoch: -1,
      state: "STABLE",
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: [],
      subscribedTopicRegex: null,
      serverAssignor: null,
      mayDescribe: req.mayDescribe,
      assigned: new Map(),
      pendingRevocation: new Map(),
      sessionTimer: null,
      rebalanceTimer: null,
    });
    // Kafka 4.x clients choose their member id (KIP-1082); v0 clients may leave it to the coordinator.
    const memberId = req.memberId === "" ? randomUUID() : req.memberId;
    if (req.instanceId !== null) {
      const holderId = this.staticMembers.get(req.instanceId);
      const holder = holderId === undefined ? undefined : this.members.get(holderId);
      if (holder) {
        if (holder.memberId !== memberId && holder.memberEpoch !== LEAVE_GROUP_STATIC_EPOCH) {
          throw new HeartbeatError(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${holder.memberId} with instance id ${req.instanceId} is not released yet.`);
        }
        // The new member takes over the old one's epoch and assignment as they stand (no rebalance).
        const m = fresh(memberId);
        m.memberEpoch = holder.memberEpoch === LEAVE_GROUP_STATIC_EPOCH ? holder.previousMemberEpoch : holder.memberEpoch;
        m.previousMemberEpoch = m.memberEpoch;
        m.state = holder.state;
        m.assigned = holder.assigned;
        m.pendingRevocation = holder.pendingRevocation;
        m.subscribedTopicNames = holder.subscribedTopicNames;
        m.subscribedTopicRegex = holder.subscribedTopicRegex;
        m.serverAssignor = holder.serverAssignor;
        this.clearTimers(holder);
        this.members.delete(holder.memberId);
        this.members.set(memberId, m);
        this.staticMembers.set(req.instanceId, memberId);
        const t = this.target.get(holder.memberId);
        this.target.delete(holder.memberId);
        if (t) this.target.set(memberId, t);
        this.ctx.log(`consumer group ${this.groupId}: static member ${req.instanceId} rejoined as ${memberId} (was ${holder.memberId})`);
        return { member: m, isNew: false };
      }
    }
    const existing = this.members.get(memberId);
    if (existing) {
      // A member fenced or restarting rejoins with epoch 0 and its id: it starts over.
      this.removeMember(existing, false);
    }
    const m = fresh(memberId);
    this.members.set(memberId, m);
    if (req.instanceId !== null) this.staticMembers.set(req.instanceId, memberId);
    this.ctx.log(`consumer group ${this.groupId}: member ${memberId} joined${req.instanceId !== null ? ` (instance ${req.instanceId})` : ""}`);
    return { member: m, isNew: true };
  }

  /** Kafka's throwIfConsumerGroupMemberEpochIsInvalid. */
  private checkEpoch(m: ConsumerMember, req: HeartbeatRequest): void {
    if (req.memberEpoch > m.memberEpoch) {
      throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The consumer group member has a greater member epoch (${req.memberEpoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
    }
    if (req.memberEpoch < m.memberEpoch) {
      // The member may have missed the answer that bumped its epoch: accepted if it owns nothing it should not.
      const owned = req.ownedTopicPartitions === null ? null : toTp(req.ownedTopicPartitions);
      const ok = req.memberEpoch === m.previousMemberEpoch && owned !== null && [...owned].every(([t, s]) => [...s].every((p) => has(m.assigned, t, p)));
      if (!ok) {
        throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The consumer group member has a smaller member epoch (${req.memberEpoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
      }
    }
  }

  private leave(req: HeartbeatRequest): HeartbeatResult {
    const m = this.members.get(req.memberId) ?? (req.instanceId !== null ? this.members.get(this.staticMembers.get(req.instanceId) ?? "") : undefined);
    if (!m) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`);
    if (req.memberEpoch === LEAVE_GROUP_STATIC_EPOCH && m.instanceId !== null) {
      // A static member going away temporarily: its assignment waits for it until its session expires.
      if (m.memberEpoch !== LEAVE_GROUP_STATIC_EPOCH) m.previousMemberEpoch = m.memberEpoch;
      m.memberEpoch = LEAVE_GROUP_STATIC_EPOCH;
      this.clearRebalanceTimer(m);
      this.touch(m);
      this.ctx.log(`consumer group ${this.groupId}: static member ${m.instanceId} (${m.memberId}) left temporarily`);
    } else {
      this.removeMember(m, true);
      this.ctx.log(`consumer group ${this.groupId}: member ${m.memberId} left`);
    }
    this.updateState();
    return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
  }

  private removeMember(m: ConsumerMember, recompute: boolean): void {
    this.clearTimers(m);
    this.members.delete(m.memberId);
    if (m.instanceId !== null && this.staticMembers.get(m.instanceId) === m.memberId) this.staticMembers.delete(m.instanceId);
    this.target.delete(m.memberId);
    this.groupEpoch++;
    if (recompute) this.computeTarget(this.computeSubscriptionMetadata());
  }

  // ---- assignment ------------------------------------------------------------

  /** The subscribed topic names of a member that exist, by topic id. */
  private memberTopics(m: ConsumerMember, byName: ReadonlyMap<string, TopicInfo>, names: readonly string[]): string[] {
    const wanted = new Set(m.subscribedTopicNames);
    if (m.subscribedTopicRegex !== null) {
      try {
        for (const n of this.regexMatches(m.subscribedTopicRegex, names)) if (m.mayDescribe(n)) wanted.add(n);
      } catch {
        // Checked when it was set; a topic name that makes it slow now matches nothing.
      }
    }
    return [...wanted].flatMap((n) => {
      const t = byName.get(n);
      return t ? [t.id] : [];
    });
  }

  private computeSubscriptionMetadata(): Map<string, number> {
    const all = this.ctx.topics.topics();
    const byName = new Map(all.map((t) => [t.name, t]));
    const byId = new Map(all.map((t) => [t.id, t]));
    const names = all.map((t) => t.name);
    const out = new Map<string, number>();
    for (const m of this.members.values()) for (const id of this.memberTopics(m, byName, names)) out.set(id, byId.get(id)!.partitionCount);
    return out;
  }

  /** Regex matches per regex, kept while the topic names stay the same (every heartbeat looks at every member's subscription). */
  private readonly regexCache = new Map<string, { signature: string; names: string[] }>();

  private regexMatches(regex: string, names: readonly string[]): string[] {
    const signature = names.join("\u0000");
    const hit = this.regexCache.get(regex);
    if (hit && hit.signature === signature) return hit.names;
    const matched = matchRegex(regex, names);
    this.regexCache.set(regex, { signature, names: matched });
    // Only regexes members still use are kept.
    const used = new Set([...this.members.values()].map((x) => x.subscribedTopicRegex));
    for (const k of this.regexCache.keys()) if (!used.has(k)) this.regexCache.delete(k);
    return matched;
  }

  /** The assignor most members ask for, else the default (Kafka's ConsumerGroup.preferredServerAssignor). */
  private chooseAssignor(): string {
    const votes = new Map<string, number>();
    for (const m of this.members.values()) if (m.serverAssignor !== null) votes.set(m.serverAssignor, (votes.get(m.serverAssignor) ?? 0) + 1);
    let best = DEFAULT_ASSIGNOR;
    let most = 0;
    for (const [name, n] of votes) if (n > most) [best, most] = [name, n];
    return best;
  }

  private computeTarget(metadata: Map<string, number>): void {
    const all = this.ctx.topics.topics();
    const byName = new Map(all.map((t) => [t.name, t]));
    const names = all.map((t) => t.name);
    this.assignorName = this.chooseAssignor();
    const assignor = ASSIGNORS.get(this.assignorName)!;
    const result = assignor.assign(
      [...this.members.values()].map((m) => ({ memberId: m.memberId, topics: this.memberTopics(m, byName, names), current: this.target.get(m.memberId) ?? new Map() })),
      metadata,
    );
    this.target.clear();
    for (const [memberId, tp] of result) this.target.set(memberId, tp);
    this.subscriptionMetadata = metadata;
    // Each member moves towards it at its own next heartbeat, as in Kafka.
    this.assignmentEpoch = this.groupEpoch;
  }

  /** Whether another member still owns (or is revoking) a partition. */
  private ownedByOther(memberId: string, topicId: string, p: number): boolean {
    for (const o of this.members.values()) if (o.memberId !== memberId && (has(o.assigned, topicId, p) || has(o.pendingRevocation, topicId, p))) return true;
    return false;
  }

  /** Kafka's CurrentAssignmentBuilder: one step of a member towards its target. */
  private reconcile(m: ConsumerMember, owned: Array<{ topicId: string; partitions: number[] }> | null): void {
    if (m.memberEpoch === LEAVE_GROUP_STATIC_EPOCH) return;
    const target = this.target.get(m.memberId) ?? new Map<string, Set<number>>();
    if (m.state === "UNREVOKED_PARTITIONS") {
      // Done revoking once the member owns nothing beyond what it keeps.
      const ownedTp = owned === null ? null : toTp(owned);
      if (ownedTp === null || [...m.pendingRevocation].some(([t, s]) => [...s].some((p) => has(ownedTp, t, p)))) return;
      m.pendingRevocation = new Map();
      this.clearRebalanceTimer(m);
    } else if (m.memberEpoch === this.assignmentEpoch && m.state === "STABLE") {
      return;
    }
    // Partitions to give up first, keeping the epoch.
    const kept: TopicPartitions = new Map();
    const revoke: TopicPartitions = new Map();
    for (const [t, s] of m.assigned) for (const p of s) addTo(has(target, t, p) ? kept : revoke, t, p);
    if (revoke.size > 0) {
      m.assigned = kept;
      m.pendingRevocation = revoke;
      m.state = "UNREVOKED_PARTITIONS";
      this.startRebalanceTimer(m);
      return;
    }
    // Then the target epoch, with the target partitions nobody else still owns.
    const assigned = cloneTp(kept);
    let unreleased = false;
    for (const [t, s] of target) {
      for (const p of s) {
        if (has(assigned, t, p)) continue;
        if (this.ownedByOther(m.memberId, t, p)) unreleased = true;
        else addTo(assigned, t, p);
      }
    }
    if (m.memberEpoch !== this.assignmentEpoch) {
      m.previousMemberEpoch = m.memberEpoch;
      m.memberEpoch = this.assignmentEpoch;
    }
    m.assigned = assigned;
    m.state = unreleased ? "UNRELEASED_PARTITIONS" : "STABLE";
  }

  // ---- timers and state -------------------------------------------------------

  private touch(m: ConsumerMember): void {
    if (m.sessionTimer) clearTimeout(m.sessionTimer);
    m.sessionTimer = setTimeout(() => {
      m.sessionTimer = null;
      if (this.members.get(m.memberId) !== m) return;
      this.ctx.log(`consumer group ${this.groupId}: member ${m.memberId} removed: no heartbeat within ${this.ctx.sessionTimeoutMs} ms`);
      this.removeMember(m, true);
      this.updateState();
    }, this.ctx.sessionTimeoutMs);
    m.sessionTimer.unref();
  }

  private startRebalanceTimer(m: ConsumerMember): void {
    if (m.rebalanceTimer) return;
    m.rebalanceTimer = setTimeout(() => {
      m.rebalanceTimer = null;
      if (this.members.get(m.memberId) !== m || m.state !== "UNREVOKED_PARTITIONS") return;
      this.ctx.log(`consumer group ${this.groupId}: member ${m.memberId} fenced: partitions not revoked within its rebalance timeout (${m.rebalanceTimeoutMs} ms)`);
      this.removeMember(m, true);
      this.updateState();
    }, Math.max(m.rebalanceTimeoutMs, 0));
    m.rebalanceTimer.unref();
  }

  private clearRebalanceTimer(m: ConsumerMember): void {
    if (m.rebalanceTimer) clearTimeout(m.rebalanceTimer);
    m.rebalanceTimer = null;
  }

  private clearTimers(m: ConsumerMember): void {
    if (m.sessionTimer) clearTimeout(m.sessionTimer);
    m.sessionTimer = null;
    this.clearRebalanceTimer(m);
  }

  /** Kafka's ConsumerGroup.maybeUpdateGroupState. */
  private updateState(): void {
    if (this.dead) return;
    if (this.members.size === 0) this.state = "Empty";
    else if (this.groupEpoch > this.assignmentEpoch) this.state = "Assigning";
    else if ([...this.members.values()].some((m) => m.memberEpoch !== LEAVE_GROUP_STATIC_EPOCH && (m.memberEpoch !== this.assignmentEpoch || m.state !== "STABLE"))) this.state = "Reconciling";
    else this.state = "Stable";
  }

  /** OffsetCommit / OffsetFetch from a member (Kafka's ConsumerGroup.validateOffsetCommit). */
  validateMemberEpoch(memberId: string, memberEpoch: number): number {
    const m = this.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    const current = m.memberEpoch === LEAVE_GROUP_STATIC_EPOCH ? m.previousMemberEpoch : m.memberEpoch;
    // Kafka 4.1 (ConsumerGroup.validateMemberEpoch for commits and fetches): any other epoch is stale.
    return memberEpoch === current ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
  }

  markDead(): void {
    this.dead = true;
    this.state = "Dead";
    for (const m of this.members.values()) this.clearTimers(m);
    this.members.clear();
  }

  shutdown(): void {
    for (const m of this.members.values()) this.clearTimers(m);
  }
}

function toTp(wire: ReadonlyArray<{ topicId: string; partitions: readonly number[] }>): TopicPartitions {
  const tp: TopicPartitions = new Map();
  for (const t of wire) for (const p of t.partitions) addTo(tp, t.topicId, p);
  return tp;
}

function sameCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
