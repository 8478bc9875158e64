// The members of a classic group, their identities (member id, group.instance.id)
// and session timers, and the checks every group request makes (Kafka's
// ClassicGroup.validateMember / validateOffsetCommit). The rebalance state
// machine built on it is group.ts.
import { ErrorCode } from "@kappa/kafka-protocol";
import { recordOf } from "./group-record.ts";
import type { GroupContext, GroupState, JoinResult, Member } from "./group-types.ts";

export const EMPTY = Buffer.alloc(0);

export abstract class GroupMembers {
  state: GroupState = "Empty";
  /** When `state` was entered (ms since the epoch); kept in the record as Kafka's current_state_timestamp. */
  stateTimestamp = Date.now();
  generation = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, Member>();
  /** group.instance.id → the member id holding it. */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED and not yet used; value = expiry timer. */
  protected readonly pendingMembers = new Map<string, NodeJS.Timeout>();
  protected rebalanceTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly groupId: string,
    protected readonly ctx: GroupContext,
  ) {}

  /** What a departure (leave, session expiry) does to the group: a rebalance, in group.ts. */
  protected abstract rebalanceAfterDeparture(reason: string): void;

  protected setState(state: GroupState): void {
    this.state = state;
    this.stateTimestamp = Date.now();
  }

  protected memberList(): Member[] {
    return [...this.members.values()];
  }

  protected store(assignments?: ReadonlyMap<string, Buffer>): Promise<void> {
    return this.ctx.store(recordOf(this, assignments));
  }

  /**
   * ClassicGroup.validateMember: a given instance id must be held by exactly this
   * member id (else FENCED_INSTANCE_ID, or UNKNOWN_MEMBER_ID if nobody holds it),
   * and the member id must be a member.
   */
  validateMember(memberId: string, groupInstanceId: string | null, operation: string): number {
    if (groupInstanceId !== null) {
      const holder = this.staticMembers.get(groupInstanceId);
      if (holder === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (holder !== memberId) {
        this.ctx.log(`group ${this.groupId}: ${operation} by member ${memberId} with group instance id ${groupInstanceId} fenced: the instance is now member ${holder}`);
        return ErrorCode.FENCED_INSTANCE_ID;
      }
    }
    return this.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  protected joinError(errorCode: number, memberId: string): JoinResult {
    return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: "", skipAssignment: false, memberId, members: [] };
  }

  protected memberMetadata(): JoinResult["members"] {
    return this.memberList().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.protocols.find((p) => p.name === this.protocolName)?.metadata ?? EMPTY,
    }));
  }

  protected joinSuccess(member: Member, overrides: Partial<JoinResult> = {}): JoinResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: this.generation,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      leader: this.leaderId ?? "",
      skipAssignment: false,
      memberId: member.memberId,
      members: member.memberId === this.leaderId ? this.memberMetadata() : [],
      ...overrides,
    };
  }

  heartbeat(memberId: string, groupInstanceId: string | null, generationId: number): number {
    if (this.state === "Dead") return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const invalid = this.validateMember(memberId, groupInstanceId, "Heartbeat");
    if (invalid !== ErrorCode.NONE) return invalid;
    if (generationId !== this.generation) return ErrorCode.ILLEGAL_GENERATION;
    if (this.state === "Empty") return ErrorCode.UNKNOWN_MEMBER_ID;
    this.touch(this.members.get(memberId)!);
    return this.state === "PreparingRebalance" ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  protected removeMemberQuietly(member: Member, reason: string): void {
    this.clearSessionTimer(member);
    this.members.delete(member.memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === member.memberId) this.staticMembers.delete(member.groupInstanceId);
    member.awaitingJoin?.(this.joinError(ErrorCode.UNKNOWN_MEMBER_ID, member.memberId));
    member.awaitingJoin = null;
    member.awaitingSync?.({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, protocolType: null, protocolName: null, assignment: EMPTY });
    member.awaitingSync = null;
    if (this.leaderId === member.memberId) this.leaderId = this.members.keys().next().value ?? null;
    this.ctx.log(`group ${this.groupId}: member ${member.memberId} removed: ${reason}`);
  }

  protected touch(member: Member): void {
    this.clearSessionTimer(member);
    member.sessionTimer = setTimeout(() => {
      member.sessionTimer = null;
      if (this.members.get(member.memberId) === member && !member.awaitingJoin) {
        this.removeMemberQuietly(member, `session timeout (${member.sessionTimeoutMs} ms) expired`);
        this.rebalanceAfterDeparture(`member ${member.memberId} session timeout expired`);
      }
    }, member.sessionTimeoutMs);
  }

  protected clearSessionTimer(member: Member): void {
    if (member.sessionTimer) {
      clearTimeout(member.sessionTimer);
      member.sessionTimer = null;
    }
  }

  /**
   * ClassicGroup.validateOffsetCommit (OffsetCommit and, with `transactional`,
   * TxnOffsetCommit). Generation −1 on an Empty group is a commit outside group
   * management (admin.setOffsets). A commit from a member refreshes its session.
   */
  validateOffsetCommit(memberId: string, groupInstanceId: string | null, generationId: number, transactional: boolean): number {
    if (this.state === "Dead") return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (generationId < 0 && this.state === "Empty") return ErrorCode.NONE;
    if (generationId >= 0 || memberId !== "" || groupInstanceId !== null) {
      const invalid = this.validateMember(memberId, groupInstanceId, transactional ? "TxnOffsetCommit" : "OffsetCommit");
      if (invalid !== ErrorCode.NONE) return invalid;
      if (generationId !== this.generation) return ErrorCode.ILLEGAL_GENERATION;
    } else if (!transactional && this.state !== "Empty") {
      // Without member id and generation (v0-1) only an Empty group takes commits.
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (transactional) return ErrorCode.NONE;
    if (this.state === "CompletingRebalance") return ErrorCode.REBALANCE_IN_PROGRESS;
    // Kafka accepts commits while PreparingRebalance so members can commit before rejoining.
    const member = this.members.get(memberId);
    if (member && (this.state === "Stable" || this.state === "PreparingRebalance")) this.touch(member);
    return ErrorCode.NONE;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.pendingMembers.size === 0;
  }

  /** DeleteGroups: only Empty groups; the caller has checked that. */
  markDead(): void {
    this.setState("Dead");
    if (this.rebalanceTimer) clearTimeout(this.rebalanceTimer);
    for (const t of this.pendingMembers.values()) clearTimeout(t);
    this.pendingMembers.clear();
  }

  /** Broker shutdown: drop every timer so the process can exit. */
  shutdown(): void {
    if (this.rebalanceTimer) clearTimeout(this.rebalanceTimer);
    for (const t of this.pendingMembers.values()) clearTimeout(t);
    for (const m of this.members.values()) this.clearSessionTimer(m);
  }
}
