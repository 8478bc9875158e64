// The durable form of a classic group: what Kafka writes to __consumer_offsets as a
// GroupMetadataValue record (key = group id). It is written when a generation's
// assignment is complete (the leader's SyncGroup), when a static member is replaced
// in a Stable group, and when a rebalance leaves the group Empty; a group comes
// back from it after a restart (src/groups/group-metadata-log.ts).
//
// Members carry the metadata of the group's selected protocol only (Kafka's
// "subscription") and their assignment; bytes are base64 in the JSON.
import type { Member } from "./group-types.ts";

export interface MemberRecord {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  /** base64 of the member's metadata for `protocol`. */
  subscription: string;
  /** base64 of the member's assignment. */
  assignment: string;
}

export interface GroupRecord {
  protocolType: string | null;
  generation: number;
  /** The selected protocol; null when the group is Empty. */
  protocol: string | null;
  leader: string | null;
  /** When the group entered the state the record describes (ms since the epoch). */
  currentStateTimestamp: number;
  members: MemberRecord[];
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === "string";
const isInt = (v: unknown, min: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min;

function parseMember(v: unknown): MemberRecord | null {
  if (typeof v !== "object" || v === null) return null;
  const m = v as Record<string, unknown>;
  if (!isString(m.memberId) || m.memberId === "" || !isNullableString(m.groupInstanceId) || !isString(m.clientId) || !isString(m.clientHost)) return null;
  if (!isInt(m.rebalanceTimeoutMs, 0) || !isInt(m.sessionTimeoutMs, 1) || !isString(m.subscription) || !isString(m.assignment)) return null;
  return {
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    sessionTimeoutMs: m.sessionTimeoutMs,
    subscription: m.subscription,
    assignment: m.assignment,
  };
}

/**
 * Checks a record read back from disk. The journal's CRC already guards against
 * torn or flipped bytes; this guards the invariants the state machine relies on
 * (a group with members has a protocol and a protocol type, member and instance
 * ids are unique), so a record that breaks them is reported and skipped rather
 * than loaded into a state Kafka could never be in.
 */
export function parseGroupRecord(v: unknown): { record: GroupRecord } | { problem: string } {
  if (typeof v !== "object" || v === null) return { problem: "not an object" };
  const r = v as Record<string, unknown>;
  if (!isNullableString(r.protocolType) || !isInt(r.generation, 0) || !isNullableString(r.protocol) || !isNullableString(r.leader)) {
    return { problem: "bad protocolType, generation, protocol or leader" };
  }
  if (!isInt(r.currentStateTimestamp, 0) || !Array.isArray(r.members)) return { problem: "bad currentStateTimestamp or members" };
  const members: MemberRecord[] = [];
  const ids = new Set<string>();
  const instances = new Set<string>();
  for (const raw of r.members) {
    const m = parseMember(raw);
    if (!m) return { problem: "malformed member" };
    if (ids.has(m.memberId)) return { problem: `member ${m.memberId} appears twice` };
    ids.add(m.memberId);
    if (m.groupInstanceId !== null) {
      if (instances.has(m.groupInstanceId)) return { problem: `group instance ${m.groupInstanceId} appears twice` };
      instances.add(m.groupInstanceId);
    }
    members.push(m);
  }
  if (members.length > 0 && (r.protocol === null || r.protocolType === null)) return { problem: "members without a protocol" };
  const leader = r.leader !== null && ids.has(r.leader) ? r.leader : (members[0]?.memberId ?? null);
  return {
    record: { protocolType: r.protocolType, generation: r.generation, protocol: members.length > 0 ? r.protocol : null, leader, currentStateTimestamp: r.currentStateTimestamp, members },
  };
}

const EMPTY = Buffer.alloc(0);

/** The record of a group as it stands, with `assignments` (if given) in place of the members' current ones. */
export function recordOf(
  g: { protocolType: string | null; generation: number; protocolName: string | null; leaderId: string | null; stateTimestamp: number; members: ReadonlyMap<string, Member> },
  assignments?: ReadonlyMap<string, Buffer>,
): GroupRecord {
  return {
    protocolType: g.protocolType,
    generation: g.generation,
    protocol: g.protocolName,
    leader: g.leaderId,
    currentStateTimestamp: g.stateTimestamp,
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      subscription: (m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? EMPTY).toString("base64"),
      assignment: (assignments?.get(m.memberId) ?? m.assignment).toString("base64"),
    })),
  };
}

/** Members as a loaded group has them: the selected protocol only (as Kafka reloads a GroupMetadataValue), no timers yet. */
export function membersFromRecord(r: GroupRecord): Member[] {
  return r.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    sessionTimeoutMs: m.sessionTimeoutMs,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    protocolType: r.protocolType ?? "",
    protocols: r.protocol === null ? [] : [{ name: r.protocol, metadata: Buffer.from(m.subscription, "base64") }],
    assignment: Buffer.from(m.assignment, "base64"),
    awaitingJoin: null,
    awaitingSync: null,
    sessionTimer: null,
  }));
}
