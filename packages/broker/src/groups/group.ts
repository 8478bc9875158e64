// One consumer group under the classic rebalance protocol, following Kafka's
// GroupCoordinator / ClassicGroup (BROKER-SPEC §4):
//
//   Empty ──join──▶ PreparingRebalance ──all joined / timeout──▶ CompletingRebalance
//     ▲                    ▲    │                                      │ leader's SyncGroup
//     │                    │    └──────── no members left ──▶ Empty    ▼
//     └── last member gone ┴──── join / leave / expiry / leader rejoin ── Stable
//   any ──DeleteGroups──▶ Dead
//
// Invariants:
//  - `generation` increases by one each time a rebalance completes (also into Empty).
//  - Members awaiting a JoinGroup response have no session timer: Kafka keeps them
//    alive for the rebalance timeout instead; every other member's session timer is
//    reset by each JoinGroup/SyncGroup/Heartbeat and removes the member on expiry.
//  - The leader is always a current member (or null when there are none).
import { randomUUID } from "node:crypto";
import { ErrorCode } from "@kappa/kafka-protocol";

export type GroupState = "Empty" | "PreparingRebalance" | "CompletingRebalance" | "Stable" | "Dead";

export interface Protocol {
  name: string;
  metadata: Buffer;
}

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: Array<{ memberId: string; groupInstanceId: string | null; metadata: Buffer }>;
}

export interface SyncResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export interface Member {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: Protocol[];
  assignment: Buffer;
  awaitingJoin: ((r: JoinResult) => void) | null;
  awaitingSync: ((r: SyncResult) => void) | null;
  sessionTimer: NodeJS.Timeout | null;
}

export interface GroupTimings {
  initialRebalanceDelayMs: number;
  onLog: (msg: string) => void;
}

const EMPTY = Buffer.alloc(0);

export class Group {
  state: GroupState = "Empty";
  generation = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, Member>();
  /** Member ids handed out with MEMBER_ID_REQUIRED and not yet used; value = expiry timer. */
  private readonly pendingMembers = new Map<string, NodeJS.Timeout>();
  private rebalanceTimer: NodeJS.Timeout | null = null;
  /** True while the initial delay of a rebalance out of Empty is running. */
  private initialDelayRunning = false;

  constructor(
    readonly groupId: string,
    private readonly timings: GroupTimings,
  ) {}

  // ---- JoinGroup -------------------------------------------------------------

  join(req: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    sessionTimeoutMs: number;
    rebalanceTimeoutMs: number;
    protocolType: string;
    protocols: Protocol[];
    requireKnownMemberId: boolean;
  }): Promise<JoinResult> {
    if (this.state === "Dead") return Promise.resolve(this.joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.memberId));
    if (!this.supportsProtocols(req.protocolType, req.protocols)) {
      return Promise.resolve(this.joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId));
    }
    if (req.memberId === "") {
      const memberId = `${req.clientId}-${randomUUID()}`;
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
    const pending = this.pendingMembers.get(req.memberId);
    if (pending) {
      clearTimeout(pending);
      this.pendingMembers.delete(req.memberId);
      return this.addMemberAndRebalance(req.memberId, req);
    }
    const member = this.members.get(req.memberId);
    if (!member) return Promise.resolve(this.joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));

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

  private joinError(errorCode: number, memberId: string): JoinResult {
    return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: "", memberId, members: [] };
  }

  private joinSuccess(member: Member): JoinResult {
    const isLeader = member.memberId === this.leaderId;
    return {
      errorCode: ErrorCode.NONE,
      generationId: this.generation,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      leader: this.leaderId ?? "",
      memberId: member.memberId,
      members: isLeader
        ? [...this.members.values()].map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            metadata: m.protocols.find((p) => p.name === this.protocolName)?.metadata ?? EMPTY,
          }))
        : [],
    };
  }

  /** A member's protocols are acceptable if the type matches and at least one protocol is shared by everyone. */
  private supportsProtocols(protocolType: string, protocols: Protocol[]): boolean {
    if (protocolType === "" || protocols.length === 0) return false;
    if (this.members.size === 0) return true;
    if (protocolType !== this.protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  private candidateProtocols(): Set<string> {
    const members = [...this.members.values()];
    const first = members[0];
    if (!first) return new Set<string>();
    const names: string[] = first.protocols.map((p) => p.name);
    return new Set(names.filter((name: string) => members.every((m) => m.protocols.some((p) => p.name === name))));
  }


  private addMemberAndRebalance(
    memberId: string,
    req: { groupInstanceId: string | null; clientId: string; clientHost: string; sessionTimeoutMs: number; rebalanceTimeoutMs: number; protocolType: string; protocols: Protocol[] },
  ): Promise<JoinResult> {
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
      if (this.leaderId === null) this.leaderId = memberId;
      this.timings.onLog(`group ${this.groupId}: member ${memberId} joined`);
      this.prepareRebalance(`member ${memberId} joined`);
      this.maybeCompleteJoin();
    });
  }

  private updateMemberAndRebalance(member: Member, req: { protocols: Protocol[]; sessionTimeoutMs: number; rebalanceTimeoutMs: number }): Promise<JoinResult> {
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

  private prepareRebalance(reason: string): void {
    if (this.state === "PreparingRebalance") return;
    if (this.state === "CompletingRebalance") {
      // The leader's assignment for this generation will never come; release waiting SyncGroups.
      for (const m of this.members.values()) {
        m.assignment = EMPTY;
        const cb = m.awaitingSync;
        m.awaitingSync = null;
        cb?.({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, protocolType: this.protocolType, protocolName: this.protocolName, assignment: EMPTY });
      }
    }
    const wasEmpty = this.state === "Empty";
    this.state = "PreparingRebalance";
    this.timings.onLog(`group ${this.groupId}: preparing rebalance (generation ${this.generation}): ${reason}`);
    const rebalanceTimeout = Math.max(1, ...[...this.members.values()].map((m) => m.rebalanceTimeoutMs));
    if (wasEmpty && this.timings.initialRebalanceDelayMs > 0) {
      // group.initial.rebalance.delay.ms: give the other members of a starting group a
      // chance to arrive so the first generation is not immediately rebalanced again.
      this.initialDelayRunning = true;
      const delay = Math.min(this.timings.initialRebalanceDelayMs, rebalanceTimeout);
      this.armRebalanceTimer(delay, () => {
        this.initialDelayRunning = false;
        if (this.allMembersJoined()) this.completeJoin();
        else this.armRebalanceTimer(Math.max(1, rebalanceTimeout - delay), () => this.completeJoin());
      });
    } else {
      this.armRebalanceTimer(rebalanceTimeout, () => this.completeJoin());
    }
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

  private completeJoin(): void {
    if (this.state !== "PreparingRebalance") return;
    if (this.rebalanceTimer) {
      clearTimeout(this.rebalanceTimer);
      this.rebalanceTimer = null;
    }
    this.initialDelayRunning = false;
    // Members that did not rejoin within the rebalance timeout are out.
    for (const m of [...this.members.values()]) {
      if (!m.awaitingJoin) this.removeMemberQuietly(m, "did not rejoin in time");
    }
    this.generation++;
    if (this.members.size === 0) {
      this.state = "Empty";
      this.protocolName = null;
      this.protocolType = null;
      this.leaderId = null;
      this.timings.onLog(`group ${this.groupId}: empty at generation ${this.generation}`);
      return;
    }
    this.protocolName = this.selectProtocol();
    if (this.leaderId === null || !this.members.has(this.leaderId)) this.leaderId = this.members.keys().next().value ?? null;
    this.state = "CompletingRebalance";
    this.timings.onLog(`group ${this.groupId}: generation ${this.generation} with ${this.members.size} members, protocol ${this.protocolName}, leader ${this.leaderId}`);
    for (const m of this.members.values()) {
      const cb = m.awaitingJoin;
      m.awaitingJoin = null;
      this.touch(m);
      cb?.(this.joinSuccess(m));
    }
  }

  /** Kafka's vote: each member votes for its most preferred candidate protocol; most votes wins. */
  private selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const choice = m.protocols.find((p) => candidates.has(p.name));
      if (choice) votes.set(choice.name, (votes.get(choice.name) ?? 0) + 1);
    }
    let best = "";
    let bestVotes = -1;
    for (const [name, n] of votes) {
      if (n > bestVotes) {
        best = name;
        bestVotes = n;
      }
    }
    return best;
  }

  // ---- SyncGroup / Heartbeat -------------------------------------------------

  sync(req: { memberId: string; generationId: number; protocolType: string | null; protocolName: string | null; assignments: Array<{ memberId: string; assignment: Buffer }> }): Promise<SyncResult> {
    const fail = (errorCode: number): Promise<SyncResult> =>
      Promise.resolve({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });
    if (this.state === "Dead") return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const member = this.members.get(req.memberId);
    if (!member) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (req.generationId !== this.generation) return fail(ErrorCode.ILLEGAL_GENERATION);
    if ((req.protocolType !== null && req.protocolType !== this.protocolType) || (req.protocolName !== null && req.protocolName !== this.protocolName)) {
      return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
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
          if (member.memberId === this.leaderId) {
            const byMember = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
            this.state = "Stable";
            this.timings.onLog(`group ${this.groupId}: stable at generation ${this.generation}`);
            for (const m of this.members.values()) {
              // Members the leader left out get an empty assignment (Kafka does the same).
              m.assignment = byMember.get(m.memberId) ?? EMPTY;
              const cb = m.awaitingSync;
              m.awaitingSync = null;
              cb?.({ errorCode: ErrorCode.NONE, protocolType: this.protocolType, protocolName: this.protocolName, assignment: m.assignment });
            }
          }
        });
      default:
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    }
  }

  heartbeat(memberId: string, generationId: number): number {
    if (this.state === "Dead") return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (this.state === "Empty") return ErrorCode.UNKNOWN_MEMBER_ID;
    const member = this.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== this.generation) return ErrorCode.ILLEGAL_GENERATION;
    this.touch(member);
    return this.state === "PreparingRebalance" ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  // ---- Leave / expiry ----------------------------------------------------------

  leave(memberId: string): number {
    if (this.state === "Dead") return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const pending = this.pendingMembers.get(memberId);
    if (pending) {
      clearTimeout(pending);
      this.pendingMembers.delete(memberId);
      this.maybeCompleteJoin();
      return ErrorCode.NONE;
    }
    const member = this.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.removeMember(member, "left the group");
    return ErrorCode.NONE;
  }

  private removeMemberQuietly(member: Member, reason: string): void {
    this.clearSessionTimer(member);
    this.members.delete(member.memberId);
    member.awaitingJoin?.(this.joinError(ErrorCode.UNKNOWN_MEMBER_ID, member.memberId));
    member.awaitingJoin = null;
    member.awaitingSync?.({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, protocolType: null, protocolName: null, assignment: EMPTY });
    member.awaitingSync = null;
    if (this.leaderId === member.memberId) this.leaderId = this.members.keys().next().value ?? null;
    this.timings.onLog(`group ${this.groupId}: member ${member.memberId} removed: ${reason}`);
  }

  private removeMember(member: Member, reason: string): void {
    this.removeMemberQuietly(member, reason);
    switch (this.state) {
      case "Stable":
      case "CompletingRebalance":
        this.prepareRebalance(`member ${member.memberId} ${reason}`);
        this.maybeCompleteJoin();
        break;
      case "PreparingRebalance":
        this.maybeCompleteJoin();
        break;
      default:
        break;
    }
  }

  private touch(member: Member): void {
    this.clearSessionTimer(member);
    member.sessionTimer = setTimeout(() => {
      member.sessionTimer = null;
      if (this.members.get(member.memberId) === member && !member.awaitingJoin) {
        this.removeMember(member, `session timeout (${member.sessionTimeoutMs} ms) expired`);
      }
    }, member.sessionTimeoutMs);
  }

  private clearSessionTimer(member: Member): void {
    if (member.sessionTimer) {
      clearTimeout(member.sessionTimer);
      member.sessionTimer = null;
    }
  }

  // ---- Offsets / admin ---------------------------------------------------------

  /** ClassicGroup.validateOffsetCommit. Returns an error code or NONE. */
  validateOffsetCommit(memberId: string, generationId: number): number {
    if (this.state === "Dead") return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (generationId < 0 && this.state === "Empty") return ErrorCode.NONE; // admin.setOffsets / manual assignment
    if (this.state === "Empty") return generationId < 0 ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
    const member = this.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== this.generation) return ErrorCode.ILLEGAL_GENERATION;
    if (this.state === "CompletingRebalance") return ErrorCode.REBALANCE_IN_PROGRESS;
    // Kafka accepts commits while PreparingRebalance so members can commit before rejoining.
    this.touch(member);
    return ErrorCode.NONE;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.pendingMembers.size === 0;
  }

  /** DeleteGroups: only Empty groups; the caller has checked that. */
  markDead(): void {
    this.state = "Dead";
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

function sameProtocols(a: Protocol[], b: Protocol[]): boolean {
  return a.length === b.length && a.every((p, i) => p.name === b[i]?.name && p.metadata.equals(b[i]?.metadata ?? EMPTY));
}
