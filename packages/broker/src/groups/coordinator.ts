// The group coordinator: every group lives on this node (FindCoordinator always
// answers with it). Membership is in memory, as in Kafka between restarts of the
// coordinator: after a broker restart members get UNKNOWN_MEMBER_ID on their next
// heartbeat and rejoin. Committed offsets are durable through the OffsetStore.
import { ErrorCode } from "@kappa/kafka-protocol";
import { Group, type GroupState } from "./group.ts";

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
  log: (msg: string) => void;
}

export const OFFSET_METADATA_MAX_BYTES = 4096;

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly offsets: OffsetStore,
    private readonly options: CoordinatorOptions,
  ) {}

  get(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  getOrCreate(groupId: string): Group {
    let g = this.groups.get(groupId);
    if (!g || g.state === "Dead") {
      g = new Group(groupId, { initialRebalanceDelayMs: this.options.initialRebalanceDelayMs, onLog: this.options.log });
      this.groups.set(groupId, g);
    }
    return g;
  }

  validateSessionTimeout(ms: number): boolean {
    return ms >= this.options.minSessionTimeoutMs && ms <= this.options.maxSessionTimeoutMs;
  }

  /** State as DescribeGroups/ListGroups report it; groups known only by their committed offsets are Empty. */
  stateOf(groupId: string): GroupState {
    const g = this.groups.get(groupId);
    if (g) return g.state;
    return this.offsets.fetch(groupId).length > 0 ? "Empty" : "Dead";
  }

  listGroups(): Array<{ groupId: string; protocolType: string; state: GroupState }> {
    const out = new Map<string, { groupId: string; protocolType: string; state: GroupState }>();
    for (const id of this.offsets.groupIds()) out.set(id, { groupId: id, protocolType: "consumer", state: "Empty" });
    for (const g of this.groups.values()) {
      if (g.state === "Dead") continue;
      out.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType ?? out.get(g.groupId)?.protocolType ?? "", state: g.state });
    }
    return [...out.values()];
  }

  /** Validation part of OffsetCommit; the caller then stores the offsets. */
  validateCommit(groupId: string, memberId: string, generationId: number): number {
    const g = this.groups.get(groupId);
    if (!g) {
      // No live group: a commit outside group management (generation -1) is fine;
      // a member of a generation this coordinator does not know (e.g. from before a
      // restart) must rejoin.
      return generationId < 0 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    }
    return g.validateOffsetCommit(memberId, generationId);
  }

  commitOffsets(groupId: string, offsets: CommittedOffset[]): Promise<void> {
    return this.offsets.commit(groupId, offsets);
  }

  fetchOffsets(groupId: string): CommittedOffset[] {
    return this.offsets.fetch(groupId);
  }

  async deleteGroup(groupId: string): Promise<number> {
    const g = this.groups.get(groupId);
    const hasOffsets = this.offsets.fetch(groupId).length > 0;
    if ((!g || g.state === "Dead") && !hasOffsets) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (g && g.state !== "Dead" && (!g.isEmpty() || g.state !== "Empty")) return ErrorCode.NON_EMPTY_GROUP;
    g?.markDead();
    this.groups.delete(groupId);
    await this.offsets.deleteGroup(groupId);
    return ErrorCode.NONE;
  }

  shutdown(): void {
    for (const g of this.groups.values()) g.shutdown();
  }
}
