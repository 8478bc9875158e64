// The group coordinator: every group lives on this node (FindCoordinator always
// answers with it). Group metadata (generation, protocol, leader, members with their
// group.instance.id and assignment) is durable in the group metadata log and comes
// back after a restart, as Kafka reloads it from __consumer_offsets: a loaded group
// is Stable (or Empty) at its stored generation, every member's session timer starts
// at load, so members that do not come back expire and the group rebalances, while
// those that do carry on with their member id and generation (a static member that
// restarted too rejoins by its instance id, without a rebalance). Committed offsets
// are durable through the OffsetStore.
import { ErrorCode } from "@kappa/kafka-protocol";
import { ConsumerGroup, HeartbeatError, type ConsumerGroupState, type HeartbeatRequest, type HeartbeatResult, type TopicCatalog } from "./consumer-group.ts";
import type { GroupMetadataStore } from "./group-metadata-log.ts";
import { Group, type GroupContext, type GroupState } from "./group.ts";

/** A group as ListGroups reports it: Kafka's group types are "classic" (JoinGroup/SyncGroup) and "consumer" (KIP-848). */
export interface ListedGroup {
  groupId: string;
  protocolType: string;
  state: GroupState | ConsumerGroupState;
  type: "classic" | "consumer";
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
}

/** What the coordinator needs from storage's group offset store (see src/storage-adapter.ts). */
export interface OffsetStore {
  commit(groupId: string, offsets: CommittedOffset[]): Promise<void>;
  fetch(groupId: string): CommittedOffset[];
  groupIds(): string[];
  deleteGroup(groupId: string): Promise<void>;
}

export interface CoordinatorOptions {
  initialRebalanceDelayMs: number;
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  /** KIP-848 consumer groups: `group.consumer.session.timeout.ms`, `group.consumer.heartbeat.interval.ms`. */
  consumerSessionTimeoutMs: number;
  consumerHeartbeatIntervalMs: number;
  /** The topics consumer groups subscribe to and are assigned from. */
  topics: TopicCatalog;
  log: (msg: string) => void;
  warn: (msg: string) => void;
}

export const OFFSET_METADATA_MAX_BYTES = 4096;

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();
  /** KIP-848 consumer groups (in memory; a group id is either classic or consumer). */
  private readonly consumerGroups = new Map<string, ConsumerGroup>();

  constructor(
    private readonly offsets: OffsetStore,
    private readonly metadata: GroupMetadataStore,
    private readonly options: CoordinatorOptions,
  ) {
    let members = 0;
    for (const [groupId, record] of metadata.loaded()) {
      const g = Group.fromRecord(groupId, record, this.contextFor(groupId));
      this.groups.set(groupId, g);
      members += g.members.size;
    }
    if (this.groups.size > 0) options.log(`loaded ${this.groups.size} group(s) with ${members} member(s) from the group metadata log`);
  }

  private contextFor(groupId: string): GroupContext {
    return {
      initialRebalanceDelayMs: this.options.initialRebalanceDelayMs,
      log: this.options.log,
      warn: this.options.warn,
      store: (record) => this.metadata.store(groupId, record),
    };
  }

  get(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  getOrCreate(groupId: string): Group {
    let g = this.groups.get(groupId);
    if (!g || g.state === "Dead") {
      g = new Group(groupId, this.contextFor(groupId));
      this.groups.set(groupId, g);
    }
    return g;
  }

  validateSessionTimeout(ms: number): boolean {
    return ms >= this.options.minSessionTimeoutMs && ms <= this.options.maxSessionTimeoutMs;
  }

  /** The KIP-848 consumer group of that id, if it is one. */
  consumerGroup(groupId: string): ConsumerGroup | undefined {
    return this.consumerGroups.get(groupId);
  }

  /**
   * ConsumerGroupHeartbeat. A group id held by a classic group with members is not a
   * consumer group (GROUP_ID_NOT_FOUND, as Kafka answers with its migration policy
   * off); an Empty classic group is converted, keeping its committed offsets.
   */
  async consumerGroupHeartbeat(groupId: string, req: HeartbeatRequest): Promise<HeartbeatResult> {
    let g = this.consumerGroups.get(groupId);
    if (!g) {
      const classic = this.groups.get(groupId);
      if (classic && classic.state !== "Dead") {
        if (!classic.isEmpty() || classic.state !== "Empty") throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
        if (req.memberEpoch !== 0) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${groupId}.`);
        classic.markDead();
        this.groups.delete(groupId);
        await this.metadata.remove(groupId);
      }
      if (req.memberEpoch !== 0) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${groupId}.`);
      g = new ConsumerGroup(groupId, {
        sessionTimeoutMs: this.options.consumerSessionTimeoutMs,
        heartbeatIntervalMs: this.options.consumerHeartbeatIntervalMs,
        topics: this.options.topics,
        log: this.options.log,
      });
      this.consumerGroups.set(groupId, g);
    }
    return g.heartbeat(req);
  }

  /**
   * A classic JoinGroup for a group id: refused while a consumer group with members
   * holds it (INCONSISTENT_GROUP_PROTOCOL); an empty consumer group becomes classic again.
   */
  classicJoinAllowed(groupId: string): boolean {
    const cg = this.consumerGroups.get(groupId);
    if (!cg) return true;
    if (!cg.isEmpty()) return false;
    cg.markDead();
    this.consumerGroups.delete(groupId);
    return true;
  }

  /** State as DescribeGroups/ListGroups report it; groups known only by their committed offsets are Empty. */
  stateOf(groupId: string): GroupState {
    const g = this.groups.get(groupId);
    if (g) return g.state;
    // A consumer group is not a classic group: DescribeGroups (v0-5) answers Dead, as Kafka does.
    if (this.consumerGroups.has(groupId)) return "Dead";
    return this.offsets.fetch(groupId).length > 0 ? "Empty" : "Dead";
  }

  listGroups(): ListedGroup[] {
    const out = new Map<string, ListedGroup>();
    for (const id of this.offsets.groupIds()) out.set(id, { groupId: id, protocolType: "consumer", state: "Empty", type: "classic" });
    for (const g of this.groups.values()) {
      if (g.state === "Dead") continue;
      out.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType ?? out.get(g.groupId)?.protocolType ?? "", state: g.state, type: "classic" });
    }
    for (const g of this.consumerGroups.values()) out.set(g.groupId, { groupId: g.groupId, protocolType: "consumer", state: g.state, type: "consumer" });
    return [...out.values()];
  }

  /**
   * Validation part of OffsetCommit / TxnOffsetCommit (Kafka's OffsetMetadataManager);
   * the caller then stores (or, in a transaction, holds) the offsets.
   */
  validateCommit(groupId: string, req: { memberId: string; groupInstanceId: string | null; generationId: number; transactional: boolean; apiVersion: number }): number {
    const cg = this.consumerGroups.get(groupId);
    if (cg) {
      // Kafka's ConsumerGroup.validateOffsetCommit: epoch −1 (admin, simple consumer) only while the group is empty.
      if (req.generationId < 0 && cg.isEmpty()) return ErrorCode.NONE;
      // Members of the consumer protocol commit with OffsetCommit v9+ (their member epoch).
      if (!req.transactional && req.apiVersion < 9 && cg.members.has(req.memberId)) return ErrorCode.UNSUPPORTED_VERSION;
      return cg.validateMemberEpoch(req.memberId, req.generationId);
    }
    const g = this.groups.get(groupId);
    if (!g) {
      // A commit outside group management (generation −1) creates a "simple" group.
      if (req.generationId < 0) return ErrorCode.NONE;
      // A group known only by its committed offsets is an Empty group: no member is in it.
      if (this.offsets.fetch(groupId).length > 0) return ErrorCode.UNKNOWN_MEMBER_ID;
      // Unknown group: OffsetCommit v9+ says so; older versions and TxnOffsetCommit keep ILLEGAL_GENERATION.
      return !req.transactional && req.apiVersion >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
    }
    return g.validateOffsetCommit(req.memberId, req.groupInstanceId, req.generationId, req.transactional);
  }

  commitOffsets(groupId: string, offsets: CommittedOffset[]): Promise<void> {
    return this.offsets.commit(groupId, offsets);
  }

  fetchOffsets(groupId: string): CommittedOffset[] {
    return this.offsets.fetch(groupId);
  }

  async deleteGroup(groupId: string): Promise<number> {
    const cg = this.consumerGroups.get(groupId);
    if (cg) {
      if (!cg.isEmpty()) return ErrorCode.NON_EMPTY_GROUP;
      cg.markDead();
      this.consumerGroups.delete(groupId);
      await this.offsets.deleteGroup(groupId);
      return ErrorCode.NONE;
    }
    const g = this.groups.get(groupId);
    const hasOffsets = this.offsets.fetch(groupId).length > 0;
    if ((!g || g.state === "Dead") && !hasOffsets) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (g && g.state !== "Dead" && (!g.isEmpty() || g.state !== "Empty")) return ErrorCode.NON_EMPTY_GROUP;
    g?.markDead();
    this.groups.delete(groupId);
    // Record first, offsets second: a crash in between leaves the offsets, which list the
    // group as Empty as before the delete, and DeleteGroups can simply be repeated.
    await this.metadata.remove(groupId);
    await this.offsets.deleteGroup(groupId);
    return ErrorCode.NONE;
  }

  /** Broker shutdown: timers stop; writes in flight finish before the log closes. */
  async close(): Promise<void> {
    for (const g of this.groups.values()) g.shutdown();
    for (const g of this.consumerGroups.values()) g.shutdown();
    await this.metadata.close();
  }
}
