// Shapes shared by the classic group state machine (group.ts), its durable record
// (group-record.ts) and the request handlers.
import type { Protocol } from "./group-protocols.ts";
import type { GroupRecord } from "./group-record.ts";

export type GroupState = "Empty" | "PreparingRebalance" | "CompletingRebalance" | "Stable" | "Dead";

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  /** JoinGroup v9+ (KIP-814): the leader must not compute an assignment. */
  skipAssignment: boolean;
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
  /** group.instance.id (KIP-345): set for static members. */
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

export interface JoinRequest {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: Protocol[];
  /** JoinGroup v4+ for dynamic members (KIP-394): a new member first gets MEMBER_ID_REQUIRED. */
  requireKnownMemberId: boolean;
  /** JoinGroup v9+ (KIP-814). */
  supportsSkipAssignment: boolean;
}

export interface SyncRequest {
  memberId: string;
  groupInstanceId: string | null;
  generationId: number;
  /** v5+; null = not given (not checked). */
  protocolType: string | null;
  protocolName: string | null;
  assignments: Array<{ memberId: string; assignment: Buffer }>;
}

/** LeaveGroup's MemberIdentity (v3+ batches them; v0-2 is one member id). */
export interface MemberIdentity {
  memberId: string;
  groupInstanceId: string | null;
}

export interface GroupContext {
  initialRebalanceDelayMs: number;
  log: (msg: string) => void;
  warn: (msg: string) => void;
  /** Durably writes the group's record; rejects with a GroupStoreError (or anything, = UNKNOWN_SERVER_ERROR). */
  store: (record: GroupRecord) => Promise<void>;
}
