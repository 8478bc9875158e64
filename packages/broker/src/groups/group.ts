// One consumer group under the classic rebalance protocol, following Kafka's
// GroupMetadataManager / ClassicGroup (BROKER-SPEC §4), with static membership (KIP-345):
//
//   Empty ──join──▶ PreparingRebalance ──all joined / timeout──▶ CompletingRebalance
//     ▲                    ▲    │                                      │ leader's SyncGroup (stored)
//     │                    │    └──────── no members left ──▶ Empty    ▼
//     └── last member gone ┴──── join / leave / expiry / leader rejoin ── Stable
//   any ──DeleteGroups──▶ Dead
//
// Invariants:
//  - `generation` increases by one each time a rebalance completes (also into Empty).
//  - Members awaiting a JoinGroup response are never expired by their session timer
//    (Kafka keeps them for the rebalance timeout instead); every other member's
//    session timer is reset by JoinGroup/SyncGroup/Heartbeat/OffsetCommit and removes
//    the member on expiry.
//  - The leader is always a current member (or null when there are none).
//  - `staticMembers` maps each group.instance.id to the one member id that holds it;
//    a request naming the instance id with any other member id is FENCED_INSTANCE_ID.
//  - A static member that rejoins with an empty member id replaces its old member id
//    and keeps its assignment; in a Stable group whose selected protocol does not
//    change, that is no rebalance. A static member that does not rejoin during a
//    rebalance stays a member until its session times out (a dynamic one is removed).
//  - What the group record holds (group-record.ts) is durable before the request that
//    changed it is answered: the leader's SyncGroup, a static member's replacement.
import { randomUUID } from "node:crypto";
import { ErrorCode } from "@kappa/kafka-protocol";
import { EMPTY, GroupMembers } from "./group-members.ts";
import { GroupStoreError } from "./group-metadata-log.ts";
import { sameProtocols, selectProtocol, supportsProtocols } from "./group-protocols.ts";
import { membersFromRecord, type GroupRecord } from "./group-record.ts";
import type { GroupContext, JoinRequest, JoinResult, Member, MemberIdentity, SyncRequest, SyncResult } from "./group-types.ts";

export type { Protocol } from "./group-protocols.ts";
export type { GroupContext, GroupState, JoinRequest, JoinResult, Member, MemberIdentity, SyncRequest, SyncResult } from "./group-types.ts";

function storeErrorCode(err: unknown): number {
  return err instanceof GroupStoreError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
}

export class Group extends GroupMembers {
  /** True while the initial delay of a rebalance out of Empty is running. */
  private initialDelayRunning = false;

  /** A group as its last record left it: Stable with its members, or Empty. Every member's session timer starts now. */
  static fromRecord(groupId: string, record: GroupRecord, ctx: GroupContext): Group {
    const g = new Group(groupId, ctx);
    g.generation = record.generation;
    g.protocolType = record.protocolType;
    g.protocolName = record.protocol;
    g.leaderId = record.leader;
    g.stateTimestamp = record.currentStateTimestamp;
    for (const m of membersFromRecord(record)) {
      g.members.set(m.memberId, m);
      if (m.groupInstanceId !== null) g.staticMembers.set(m.groupInstanceId, m.memberId);
    }
    g.state = g.members.size > 0 ? "Stable" : "Empty";
    for (const m of g.members.values()) g.touch(m);
    return g;
  }

  // ---- JoinGroup -------------------------------------------------------------

  join(req: JoinRequest): Promise<JoinResult> {
    if (this.state === "Dead") return Promise.resolve(this.joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.memberId));
    if (!supportsProtocols(this.protocolType, this.memberList(), req.protocolType, req.protocols)) {
      return Promise.resolve(this.joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId));
    }
    if (req.memberId === "") return this.joinNewMember(req);
    const pending = this.pendingMembers.get(req.memberId);
    if (pending) {
      // Only dynamic joins are ever pending (static members skip MEMBER_ID_REQUIRED). Kafka
      // treats a static join with a pending id as an internal error; this tells the client
      // to start over with an empty member id, which is the static path.
      if (req.groupInstanceId !== null) return Promise.resolve(this.joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
      clearTimeout(pending);
      this.pendingMembers.delete(req.memberId);
      return this.addMemberAndRebalance(req.memberId, req);
    }
    const invalid = this.validateMember(req.memberId, req.groupInstanceId, "JoinGroup");
    if (invalid !== ErrorCode.NONE) return Promise.resolve(this.joinError(invalid, req.memberId));
    const member = this.members.get(req.memberId)!;

    switch (this.state) {
      case "PreparingRebalance":
        return this.updateMemberAndRebalance(member, req);
      case "CompletingRebalance":
        if (sameProtocols(member.protocols, req.protocols)) {
          // The member missed the JoinGroup response (e.g. a retry); resend it.
          this.touch(member);
          return Promise.resolve(this.joinSuccess(member));
        }
        return this.updateMemberAndRebalance(member, req);
      case "Stable":
        if (member.memberId === this.leaderId || !sameProtocols(member.protocols, req.protocols)) {
          // A leader rejoining means it wants to reassign (e.g. topic metadata changed).
          return this.updateMemberAndRebalance(member, req);
        }
        this.touch(member);
        return Promise.resolve(this.joinSuccess(member));
      default:
        return Promise.resolve(this.joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
    }
  }

  private joinNewMember(req: JoinRequest): Promise<JoinResult> {
    // Kafka's member ids: "<group.instance.id or client.id>-<uuid>".
    const memberId = `${req.groupInstanceId ?? req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) {
      const holder = this.staticMembers.get(req.groupInstanceId);
      if (holder !== undefined) return this.replaceStaticMember(holder, memberId, req);
      return this.addMemberAndRebalance(memberId, req);
    }
    if (req.requireKnownMemberId) {
      // KIP-394: hand out an id first so a client that dies before rejoining does
      // not leave a ghost member behind; the id expires after the session timeout.
      this.pendingMembers.set(
        memberId,
        setTimeout(() => {
          this.pendingMembers.delete(memberId);
          this.maybeCompleteJoin();
        }, req.sessionTimeoutMs),
      );
      return Promise.resolve(this.joinError(ErrorCode.MEMBER_ID_REQUIRED, memberId));
    }
    return this.addMemberAndRebalance(memberId, req);
  }

  private addMemberAndRebalance(memberId: string, req: JoinRequest): Promise<JoinResult> {
    return new Promise((resolve) => {
      const member: Member = {
        memberId,
        groupInstanceId: req.groupInstanceId,
        clientId: req.clientId,
        clientHost: req.clientHost,
        sessionTimeoutMs: req.sessionTimeoutMs,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs,
        protocolType: req.protocolType,
        protocols: req.protocols,
        assignment: EMPTY,
        awaitingJoin: resolve,
        awaitingSync: null,
        sessionTimer: null,
      };
      if (this.members.size === 0) this.protocolType = req.protocolType;
      this.members.set(memberId, member);
      if (req.groupInstanceId !== null) this.staticMembers.set(req.groupInstanceId, memberId);
      if (this.leaderId === null) this.leaderId = memberId;
      const instance = req.groupInstanceId === null ? "" : ` (group instance id ${req.groupInstanceId})`;
      this.ctx.log(`group ${this.groupId}: member ${memberId}${instance} joined`);
      this.prepareRebalance(`member ${memberId} joined`);
      this.maybeCompleteJoin();
    });
  }

  private updateMemberAndRebalance(member: Member, req: JoinRequest): Promise<JoinResult> {
    return new Promise((resolve) => {
      member.protocols = req.protocols;
      member.sessionTimeoutMs = req.sessionTimeoutMs;
      member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
      // A duplicate JoinGroup replaces the earlier one; the earlier caller is told to retry.
      member.awaitingJoin?.(this.joinError(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
      member.awaitingJoin = resolve;
      this.clearSessionTimer(member);
      if (this.state !== "PreparingRebalance") this.prepareRebalance(`member ${member.memberId} rejoined`);
      this.maybeCompleteJoin();
    });
  }

  /**
   * Kafka's updateStaticMemberThenRebalanceOrCompleteJoin: the instance's new member id
   * takes over the old one's place (assignment included); the old id is fenced, and
   * whatever the old incarnation is waiting for is answered FENCED_INSTANCE_ID.
   */
  private replaceStaticMember(oldId: string, newId: string, req: JoinRequest): Promise<JoinResult> {
    const instanceId = req.groupInstanceId!;
    const old = this.members.get(oldId)!;
    const previousLeader = this.leaderId;
    this.ctx.log(`group ${this.groupId}: static member ${instanceId} rejoined as ${newId} in state ${this.state}; ${oldId} is fenced`);
    this.clearSessionTimer(old);
    this.members.delete(oldId);
    old.awaitingJoin?.(this.joinError(ErrorCode.FENCED_INSTANCE_ID, oldId));
    old.awaitingJoin = null;
    old.awaitingSync?.({ errorCode: ErrorCode.FENCED_INSTANCE_ID, protocolType: null, protocolName: null, assignment: EMPTY });
    old.awaitingSync = null;
    const member: Member = { ...old, memberId: newId, sessionTimer: null };
    this.members.set(newId, member);
    if (this.leaderId === oldId) this.leaderId = newId;
    this.staticMembers.set(instanceId, newId);
    this.touch(member);
    const previous = { protocols: member.protocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs };
    member.protocols = req.protocols;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.sessionTimeoutMs = req.sessionTimeoutMs;

    return new Promise((resolve) => {
      member.awaitingJoin = resolve;
      if (this.state === "Stable") {
        if (selectProtocol(this.memberList()) === this.protocolName) {
          // No rebalance: store the new member id, then answer with the current generation.
          this.store().then(
            () => {
              if (member.awaitingJoin !== resolve) return; // a rebalance began meanwhile and answered it
              member.awaitingJoin = null;
              const isLeader = this.leaderId === newId;
              // Before v9 the old leader id is returned so a returning leader does not think
              // it leads and computes no assignment a Stable group would never hand out.
              resolve(
                req.supportsSkipAssignment
                  ? this.joinSuccess(member, { skipAssignment: isLeader })
                  : this.joinSuccess(member, { members: [], leader: previousLeader ?? "" }),
              );
            },
            (err: unknown) => {
              if (member.awaitingJoin !== resolve) return;
              member.awaitingJoin = null;
              this.ctx.warn(`group ${this.groupId}: storing static member ${instanceId} as ${newId} failed, reverting to ${oldId}: ${err instanceof Error ? err.message : String(err)}`);
              if (this.members.get(newId) === member) {
                Object.assign(member, previous);
                this.clearSessionTimer(member);
                this.members.delete(newId);
                const back: Member = { ...member, memberId: oldId, awaitingJoin: null, awaitingSync: null, sessionTimer: null };
                this.members.set(oldId, back);
                if (this.leaderId === newId) this.leaderId = oldId;
                this.staticMembers.set(instanceId, oldId);
                this.touch(back);
              }
              resolve(this.joinError(storeErrorCode(err), ""));
            },
          );
          return;
        }
        this.prepareRebalance(`static member ${instanceId} rejoined with a change of protocol`);
      } else if (this.state === "CompletingRebalance") {
        // The leader may be assigning to the old member id, which the new one would not get.
        this.prepareRebalance(`static member ${instanceId} rejoined while the leader assigns`);
      }
      this.maybeCompleteJoin();
    });
  }

  private prepareRebalance(reason: string): void {
    if (this.state === "PreparingRebalance") return;
    if (this.state === "CompletingRebalance") this.failPendingSyncs(ErrorCode.REBALANCE_IN_PROGRESS);
    const wasEmpty = this.state === "Empty";
    this.setState("PreparingRebalance");
    this.ctx.log(`group ${this.groupId}: preparing rebalance (generation ${this.generation}): ${reason}`);
    const rebalanceTimeout = this.rebalanceTimeoutMs();
    if (wasEmpty && this.ctx.initialRebalanceDelayMs > 0) {
      // group.initial.rebalance.delay.ms: give the other members of a starting group a
      // chance to arrive so the first generation is not immediately rebalanced again.
      this.initialDelayRunning = true;
      const delay = Math.min(this.ctx.initialRebalanceDelayMs, rebalanceTimeout);
      this.armRebalanceTimer(delay, () => {
        this.initialDelayRunning = false;
        if (this.allMembersJoined()) this.completeJoin();
        else this.armRebalanceTimer(Math.max(1, rebalanceTimeout - delay), () => this.completeJoin());
      });
    } else {
      this.armRebalanceTimer(rebalanceTimeout, () => this.completeJoin());
    }
  }

  private rebalanceTimeoutMs(): number {
    return Math.max(1, ...this.memberList().map((m) => m.rebalanceTimeoutMs));
  }

  private armRebalanceTimer(ms: number, fn: () => void): void {
    if (this.rebalanceTimer) clearTimeout(this.rebalanceTimer);
    this.rebalanceTimer = setTimeout(() => {
      this.rebalanceTimer = null;
      fn();
    }, ms);
  }

  private allMembersJoined(): boolean {
    if (this.pendingMembers.size > 0) return false;
    for (const m of this.members.values()) if (!m.awaitingJoin) return false;
    return true;
  }

  private maybeCompleteJoin(): void {
    if (this.state === "PreparingRebalance" && !this.initialDelayRunning && this.allMembersJoined()) this.completeJoin();
  }

  /** ClassicGroup.maybeElectNewJoinedLeader: the leader must be a member that rejoined. */
  private electJoinedLeader(): boolean {
    if (this.leaderId !== null && this.members.get(this.leaderId)?.awaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.awaitingJoin) {
        if (this.leaderId !== null) this.ctx.log(`group ${this.groupId}: leader ${this.leaderId} did not rejoin in time; ${m.memberId} leads`);
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  private completeJoin(): void {
    if (this.state !== "PreparingRebalance") return;
    if (this.rebalanceTimer) {
      clearTimeout(this.rebalanceTimer);
      this.rebalanceTimer = null;
    }
    this.initialDelayRunning = false;
    // Dynamic members that did not rejoin within the rebalance timeout are out; static
    // ones stay until their session times out (KIP-345).
    for (const m of this.memberList()) {
      if (!m.awaitingJoin && m.groupInstanceId === null) this.removeMemberQuietly(m, "did not rejoin in time");
    }
    if (!this.electJoinedLeader() && this.members.size > 0) {
      // Only absent static members are left: wait another rebalance timeout, during
      // which their session timers remove them (or they come back).
      this.ctx.warn(`group ${this.groupId}: could not complete rebalance because no members rejoined`);
      this.armRebalanceTimer(this.rebalanceTimeoutMs(), () => this.completeJoin());
      return;
    }
    this.generation++;
    if (this.members.size === 0) {
      this.setState("Empty");
      this.protocolName = null;
      this.leaderId = null;
      this.ctx.log(`group ${this.groupId}: empty at generation ${this.generation}`);
      // Kafka writes the Empty generation too. Nobody waits on it: if it is lost, the previous
      // record comes back after a restart and its members time out.
      this.store().catch((err: unknown) => this.ctx.warn(`group ${this.groupId}: storing the empty generation ${this.generation} failed: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    this.protocolName = selectProtocol(this.memberList());
    this.setState("CompletingRebalance");
    this.ctx.log(`group ${this.groupId}: generation ${this.generation} with ${this.members.size} members, protocol ${this.protocolName}, leader ${this.leaderId}`);
    for (const m of this.members.values()) {
      const cb = m.awaitingJoin;
      m.awaitingJoin = null;
      this.touch(m);
      cb?.(this.joinSuccess(m));
    }
  }

  // ---- SyncGroup / Heartbeat -------------------------------------------------

  sync(req: SyncRequest): Promise<SyncResult> {
    const fail = (errorCode: number): Promise<SyncResult> => Promise.resolve({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });
    if (this.state === "Dead") return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const invalid = this.validateMember(req.memberId, req.groupInstanceId, "SyncGroup");
    if (invalid !== ErrorCode.NONE) return fail(invalid);
    if (req.generationId !== this.generation) return fail(ErrorCode.ILLEGAL_GENERATION);
    const inconsistent = (given: string | null, ours: string | null) => given !== null && ours !== null && given !== ours;
    if (inconsistent(req.protocolType, this.protocolType) || inconsistent(req.protocolName, this.protocolName)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const member = this.members.get(req.memberId)!;
    switch (this.state) {
      case "PreparingRebalance":
        return fail(ErrorCode.REBALANCE_IN_PROGRESS);
      case "Stable":
        this.touch(member);
        return Promise.resolve({ errorCode: ErrorCode.NONE, protocolType: this.protocolType, protocolName: this.protocolName, assignment: member.assignment });
      case "CompletingRebalance":
        return new Promise((resolve) => {
          member.awaitingSync?.({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, protocolType: null, protocolName: null, assignment: EMPTY });
          member.awaitingSync = resolve;
          this.touch(member);
          if (member.memberId === this.leaderId) this.completeSync(req);
        });
      default:
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    }
  }

  /** The leader's assignment: stored first (members it left out get empty bytes, as in Kafka), then handed out. */
  private completeSync(req: SyncRequest): void {
    const given = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
    const assignments = new Map(this.memberList().map((m) => [m.memberId, given.get(m.memberId) ?? EMPTY]));
    const generation = this.generation;
    this.store(assignments).then(
      () => {
        // A member may have joined (or left) while the record was written: then this generation is over.
        if (this.state !== "CompletingRebalance" || this.generation !== generation) return;
        this.setState("Stable");
        this.ctx.log(`group ${this.groupId}: stable at generation ${this.generation}`);
        for (const m of this.members.values()) {
          m.assignment = assignments.get(m.memberId) ?? EMPTY;
          const cb = m.awaitingSync;
          m.awaitingSync = null;
          if (cb) {
            this.touch(m);
            cb({ errorCode: ErrorCode.NONE, protocolType: this.protocolType, protocolName: this.protocolName, assignment: m.assignment });
          }
        }
      },
      (err: unknown) => {
        if (this.state !== "CompletingRebalance" || this.generation !== generation) return;
        this.ctx.warn(`group ${this.groupId}: storing the assignment of generation ${generation} failed: ${err instanceof Error ? err.message : String(err)}`);
        this.failPendingSyncs(storeErrorCode(err));
        this.prepareRebalance(`storing the assignment of generation ${generation} failed`);
        this.maybeCompleteJoin();
      },
    );
  }

  /** Answers every parked SyncGroup with `errorCode` and clears the assignments of this generation. */
  private failPendingSyncs(errorCode: number): void {
    for (const m of this.members.values()) {
      m.assignment = EMPTY;
      const cb = m.awaitingSync;
      m.awaitingSync = null;
      cb?.({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });
    }
  }

  // ---- Leave / expiry ----------------------------------------------------------

  /**
   * LeaveGroup for a batch of member identities (v3+; v0-2 send one). A member id of ""
   * with a group instance id removes that static member whatever its member id is
   * (AdminClient.removeMembersFromConsumerGroup). Returns a top-level error (the group is
   * Dead) or one error per identity; any departure starts a rebalance.
   */
  leave(identities: readonly MemberIdentity[]): { errorCode: number; members: number[] } {
    if (this.state === "Dead") return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    let anyLeft = false;
    const members = identities.map(({ memberId, groupInstanceId }) => {
      if (memberId === "") {
        const holder = groupInstanceId === null ? undefined : this.staticMembers.get(groupInstanceId);
        const member = holder === undefined ? undefined : this.members.get(holder);
        if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
        this.removeMemberQuietly(member, `removed by group instance id ${groupInstanceId}`);
        anyLeft = true;
        return ErrorCode.NONE;
      }
      const pending = this.pendingMembers.get(memberId);
      if (pending) {
        clearTimeout(pending);
        this.pendingMembers.delete(memberId);
        anyLeft = true;
        return ErrorCode.NONE;
      }
      const invalid = this.validateMember(memberId, groupInstanceId, "LeaveGroup");
      if (invalid !== ErrorCode.NONE) return invalid;
      this.removeMemberQuietly(this.members.get(memberId)!, "left the group");
      anyLeft = true;
      return ErrorCode.NONE;
    });
    if (anyLeft) this.rebalanceAfterDeparture("members left the group");
    return { errorCode: ErrorCode.NONE, members };
  }

  protected rebalanceAfterDeparture(reason: string): void {
    switch (this.state) {
      case "Stable":
      case "CompletingRebalance":
        this.prepareRebalance(reason);
        this.maybeCompleteJoin();
        break;
      case "PreparingRebalance":
        this.maybeCompleteJoin();
        break;
      default:
        break;
    }
  }

  // ---- Offsets / admin ---------------------------------------------------------

}
