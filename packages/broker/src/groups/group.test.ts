import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "@kappa/kafka-protocol";
import { GroupStoreError } from "./group-metadata-log.ts";
import type { GroupRecord } from "./group-record.ts";
import { Group, type GroupContext, type JoinRequest, type Protocol, type SyncRequest } from "./group.ts";

const groups: Group[] = [];
/** Records the group stored, in order. */
let stored: GroupRecord[] = [];
// Members that join "at once" need the initial delay to land in one generation, as in Kafka.
function context(initialRebalanceDelayMs = 50, store?: GroupContext["store"]): GroupContext {
  return {
    initialRebalanceDelayMs,
    log: () => {},
    warn: () => {},
    store:
      store ??
      ((r) => {
        stored.push(r);
        return Promise.resolve();
      }),
  };
}
function newGroup(initialRebalanceDelayMs = 50): Group {
  const g = new Group("g", context(initialRebalanceDelayMs));
  groups.push(g);
  return g;
}
afterEach(() => {
  for (const g of groups.splice(0)) g.shutdown();
  stored = [];
});

const proto = (...names: string[]): Protocol[] => names.map((name) => ({ name, metadata: Buffer.from(name) }));
const joinReq = (memberId: string, protocols: Protocol[], extra: Partial<JoinRequest> = {}): JoinRequest => ({
  memberId,
  groupInstanceId: null,
  clientId: "c",
  clientHost: "/127.0.0.1",
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 2_000,
  protocolType: "consumer",
  protocols,
  requireKnownMemberId: false,
  supportsSkipAssignment: false,
  ...extra,
});
const join = (g: Group, memberId: string, protocols: Protocol[], protocolType = "consumer") => g.join(joinReq(memberId, protocols, { protocolType }));
const syncReq = (memberId: string, generationId: number, assignments: SyncRequest["assignments"] = [], groupInstanceId: string | null = null): SyncRequest => ({
  memberId,
  groupInstanceId,
  generationId,
  protocolType: null,
  protocolName: null,
  assignments,
});

describe("classic group state machine", () => {
  it("elects a leader, picks the protocol by vote among those everyone supports, and gives followers no member list", async () => {
    const g = newGroup();
    const a = join(g, "", proto("roundrobin", "range"));
    const b = join(g, "", proto("range", "roundrobin"));
    const c = join(g, "", proto("range"));
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect(g.state).toBe("CompletingRebalance");
    expect(ra.protocolName).toBe("range");
    expect(new Set([ra.generationId, rb.generationId, rc.generationId])).toEqual(new Set([1]));
    expect(ra.leader).toBe(ra.memberId);
    expect(ra.members.map((m) => m.memberId)).toEqual([ra.memberId, rb.memberId, rc.memberId]);
    expect(ra.members[0]?.metadata).toEqual(Buffer.from("range"));
    expect(rb.members).toEqual([]);
  });

  it("refuses a member with a different protocol type or no common protocol", async () => {
    const g = newGroup();
    await join(g, "", proto("range"));
    expect((await join(g, "", proto("range"), "connect")).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await join(g, "", proto("RoundRobinAssigner"))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it("waits group.initial.rebalance.delay.ms before completing the first rebalance", async () => {
    const g = newGroup(150);
    const started = Date.now();
    const a = join(g, "", proto("range"));
    setTimeout(() => void join(g, "", proto("range")), 50);
    const r = await a;
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(g.members.size).toBe(2);
    expect(r.generationId).toBe(1);
  });

  it("hands out a member id first when the client requires it (JoinGroup v4+)", async () => {
    const g = newGroup(0);
    const r = await g.join(joinReq("", proto("range"), { clientId: "client", rebalanceTimeoutMs: 1000, requireKnownMemberId: true }));
    expect(r.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(r.memberId).toMatch(/^client-/);
    expect(g.state).toBe("Empty");
    expect((await join(g, r.memberId, proto("range"))).errorCode).toBe(ErrorCode.NONE);
  });

  it("moves to Stable on the leader's SyncGroup and rebalances when the leader rejoins", async () => {
    const g = newGroup();
    const [ra, rb] = await Promise.all([join(g, "", proto("range")), join(g, "", proto("range"))]);
    const follower = g.sync(syncReq(rb.memberId, 1));
    const leader = await g.sync(syncReq(ra.memberId, 1, [{ memberId: rb.memberId, assignment: Buffer.from("b") }]));
    expect(leader.assignment).toEqual(Buffer.alloc(0));
    expect((await follower).assignment).toEqual(Buffer.from("b"));
    expect(g.state).toBe("Stable");
    expect(g.heartbeat(rb.memberId, null, 1)).toBe(ErrorCode.NONE);
    const rejoin = join(g, ra.memberId, proto("range"));
    expect(g.state).toBe("PreparingRebalance");
    expect(g.heartbeat(rb.memberId, null, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(g.validateOffsetCommit(rb.memberId, null, 1, false)).toBe(ErrorCode.NONE); // commits allowed while preparing
    const rb2 = await join(g, rb.memberId, proto("range"));
    expect((await rejoin).generationId).toBe(2);
    expect(rb2.generationId).toBe(2);
    expect(g.validateOffsetCommit(rb.memberId, null, 2, false)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(g.validateOffsetCommit(rb.memberId, null, 1, false)).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it("removes members that do not rejoin within the rebalance timeout, and becomes Empty when the last one leaves", async () => {
    const g = newGroup();
    const [ra, rb] = await Promise.all([join(g, "", proto("range")), join(g, "", proto("range"))]);
    await Promise.all([
      g.sync(syncReq(ra.memberId, 1)),
      g.sync(syncReq(rb.memberId, 1)),
    ]);
    const started = Date.now();
    const r = await g.join(joinReq(ra.memberId, proto("range", "x"), { rebalanceTimeoutMs: 200 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900); // b's rebalance timeout (2 s) is the group's
    expect(r.members.map((m) => m.memberId)).toEqual([ra.memberId]);
    expect(g.heartbeat(rb.memberId, null, 2)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.leave([{ memberId: ra.memberId, groupInstanceId: null }])).toEqual({ errorCode: ErrorCode.NONE, members: [ErrorCode.NONE] });
    expect(g.state).toBe("Empty");
    expect(g.generation).toBe(3);
  });
});

describe("static membership (KIP-345)", () => {
  const staticJoin = (g: Group, instance: string, memberId = "", extra: Partial<JoinRequest> = {}) => g.join(joinReq(memberId, proto("range"), { groupInstanceId: instance, ...extra }));

  /** Static members a and b in a Stable generation 1; a leads and assigns "A" / "B". */
  async function stableGroup(g: Group, extra: Partial<JoinRequest> = {}) {
    const [ra, rb] = await Promise.all([staticJoin(g, "a", "", extra), staticJoin(g, "b", "", extra)]);
    expect(ra.leader).toBe(ra.memberId);
    const assignments = [
      { memberId: ra.memberId, assignment: Buffer.from("A") },
      { memberId: rb.memberId, assignment: Buffer.from("B") },
    ];
    const [sa, sb] = await Promise.all([g.sync(syncReq(ra.memberId, 1, assignments, "a")), g.sync(syncReq(rb.memberId, 1, [], "b"))]);
    expect([sa.assignment.toString(), sb.assignment.toString()]).toEqual(["A", "B"]);
    expect(g.state).toBe("Stable");
    return { a: ra.memberId, b: rb.memberId };
  }

  it("skips MEMBER_ID_REQUIRED, names member ids after the instance, and stores the assignment before answering", async () => {
    const g = newGroup();
    const { a, b } = await stableGroup(g, { requireKnownMemberId: false });
    expect(a).toMatch(/^a-/);
    expect(b).toMatch(/^b-/);
    const last = stored.at(-1)!;
    expect(last).toMatchObject({ generation: 1, protocol: "range", protocolType: "consumer", leader: a });
    expect(last.members.map((m) => [m.groupInstanceId, Buffer.from(m.assignment, "base64").toString()])).toEqual([
      ["a", "A"],
      ["b", "B"],
    ]);
  });

  it("gives a restarted member its assignment back without a rebalance, and fences the old member id everywhere", async () => {
    const g = newGroup();
    const { a, b } = await stableGroup(g);
    const rejoined = await staticJoin(g, "a");
    expect(rejoined.errorCode).toBe(ErrorCode.NONE);
    expect(rejoined.memberId).not.toBe(a);
    // Before v9 the old leader id comes back, so the returning leader does not assign.
    expect(rejoined).toMatchObject({ generationId: 1, leader: a, members: [], skipAssignment: false, protocolName: "range" });
    expect(g.state).toBe("Stable");
    expect(g.generation).toBe(1);
    expect(g.heartbeat(b, "b", 1)).toBe(ErrorCode.NONE);
    const synced = await g.sync(syncReq(rejoined.memberId, 1, [], "a"));
    expect(synced.assignment.toString()).toBe("A");
    expect(stored.at(-1)!.members.map((m) => m.memberId)).toContain(rejoined.memberId);

    expect(g.heartbeat(a, "a", 1)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await g.sync(syncReq(a, 1, [], "a"))).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await staticJoin(g, "a", a)).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(g.validateOffsetCommit(a, "a", 1, false)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(g.validateOffsetCommit(a, "a", 1, true)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(g.leave([{ memberId: a, groupInstanceId: "a" }])).toEqual({ errorCode: ErrorCode.NONE, members: [ErrorCode.FENCED_INSTANCE_ID] });
    // Without its instance id the old id is simply unknown; an unknown instance id is too.
    expect(g.heartbeat(a, null, 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.heartbeat(b, "nobody", 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.state).toBe("Stable");
    expect(g.validateOffsetCommit(rejoined.memberId, "a", 1, false)).toBe(ErrorCode.NONE);
  });

  it("v9 (KIP-814): a returning leader learns it leads, with skip_assignment and the member list", async () => {
    const g = newGroup();
    const { b } = await stableGroup(g);
    const leader = await staticJoin(g, "a", "", { supportsSkipAssignment: true });
    expect(leader).toMatchObject({ leader: leader.memberId, skipAssignment: true, generationId: 1 });
    expect(leader.members.map((m) => m.groupInstanceId).sort()).toEqual(["a", "b"]);
    const follower = await staticJoin(g, "b", "", { supportsSkipAssignment: true });
    expect(follower).toMatchObject({ leader: leader.memberId, skipAssignment: false, members: [] });
    expect(g.heartbeat(b, "b", 1)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(g.generation).toBe(1);
  });

  it("rebalances when the rejoining member's protocols change the group's protocol, and fences a parked old incarnation", async () => {
    const g = newGroup();
    const { a, b } = await stableGroup(g);
    // a's old incarnation parks a JoinGroup (a rejoin of the leader starts a rebalance) ...
    const parked = staticJoin(g, "a", a);
    expect(g.state).toBe("PreparingRebalance");
    // ... and its new incarnation arrives: the parked one is fenced at once.
    const fresh = staticJoin(g, "a");
    expect((await parked).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const [rb] = await Promise.all([staticJoin(g, "b", b)]);
    const ra = await fresh;
    expect(ra.generationId).toBe(2);
    expect(rb.generationId).toBe(2);
  });

  it("rebalances when a returning member's protocols change the group's selected protocol", async () => {
    const g = newGroup();
    const both = proto("range", "roundrobin");
    const [ra, rb] = await Promise.all([g.join(joinReq("", both, { groupInstanceId: "a" })), g.join(joinReq("", both, { groupInstanceId: "b" }))]);
    await Promise.all([g.sync(syncReq(ra.memberId, 1, [], "a")), g.sync(syncReq(rb.memberId, 1, [], "b"))]);
    expect(g.protocolName).toBe("range");
    // b comes back supporting roundrobin only: the vote would pick roundrobin, so this is a rebalance.
    const changed = g.join(joinReq("", proto("roundrobin"), { groupInstanceId: "b" }));
    expect(g.state).toBe("PreparingRebalance");
    const again = await g.join(joinReq(ra.memberId, both, { groupInstanceId: "a" }));
    expect((await changed).generationId).toBe(2);
    expect(again).toMatchObject({ generationId: 2, protocolName: "roundrobin" });
  });

  it("keeps a static member that does not rejoin a rebalance until its session times out", async () => {
    const g = newGroup();
    const [ra, rb] = await Promise.all([
      staticJoin(g, "a", "", { rebalanceTimeoutMs: 150, sessionTimeoutMs: 600 }),
      staticJoin(g, "b", "", { rebalanceTimeoutMs: 150, sessionTimeoutMs: 10_000 }),
    ]);
    expect(ra.generationId).toBe(1);
    await Promise.all([g.sync(syncReq(ra.memberId, 1, [], "a")), g.sync(syncReq(rb.memberId, 1, [], "b"))]);
    // b rejoins with new metadata; a stays silent.
    const r2 = await g.join(joinReq(rb.memberId, [{ name: "range", metadata: Buffer.from("v2") }], { groupInstanceId: "b", rebalanceTimeoutMs: 150 }));
    expect(r2.generationId).toBe(2);
    expect(r2.leader).toBe(rb.memberId); // a did not rejoin: b leads
    expect(r2.members.map((m) => m.groupInstanceId).sort()).toEqual(["a", "b"]);
    expect(g.members.has(ra.memberId)).toBe(true);
    await g.sync(syncReq(rb.memberId, 2, [], "b"));
    // a's session (600 ms from the last completed rebalance) expires: removed, rebalance.
    const deadline = Date.now() + 5000;
    while (g.members.has(ra.memberId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(g.members.has(ra.memberId)).toBe(false);
    expect(g.staticMembers.has("a")).toBe(false);
    expect(g.heartbeat(rb.memberId, "b", 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it("removes a static member by group instance id alone (LeaveGroup v3+ with an empty member id)", async () => {
    const g = newGroup();
    const { a, b } = await stableGroup(g);
    expect(g.leave([{ memberId: "", groupInstanceId: "a" }, { memberId: "", groupInstanceId: "zz" }])).toEqual({ errorCode: ErrorCode.NONE, members: [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID] });
    expect(g.members.has(a)).toBe(false);
    expect(g.state).toBe("PreparingRebalance");
    expect((await staticJoin(g, "b", b)).generationId).toBe(2);
  });

  it("reverts the replacement when storing it fails, and answers with the store's error", async () => {
    let fail = false;
    const g = new Group("g", context(50, (r) => (fail ? Promise.reject(new GroupStoreError(ErrorCode.NOT_COORDINATOR, "disk")) : (stored.push(r), Promise.resolve()))));
    groups.push(g);
    const { a } = await stableGroup(g);
    fail = true;
    const r = await staticJoin(g, "a");
    expect(r).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, memberId: "" });
    expect(g.heartbeat(a, "a", 1)).toBe(ErrorCode.NONE);
    expect(g.staticMembers.get("a")).toBe(a);
    expect(g.leaderId).toBe(a);
  });

  it("fails every parked SyncGroup with the store's error when the leader's assignment cannot be stored", async () => {
    let fail = true;
    const g = new Group("g", context(50, () => (fail ? Promise.reject(new GroupStoreError(ErrorCode.UNKNOWN_SERVER_ERROR, "too large")) : Promise.resolve())));
    groups.push(g);
    const [ra, rb] = await Promise.all([staticJoin(g, "a"), staticJoin(g, "b")]);
    const follower = g.sync(syncReq(rb.memberId, 1, [], "b"));
    const leader = await g.sync(syncReq(ra.memberId, 1, [{ memberId: rb.memberId, assignment: Buffer.from("B") }], "a"));
    expect(leader.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect((await follower).errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(g.state).toBe("PreparingRebalance");
    fail = false;
  });

  it("comes back from its record Stable, at its generation, with static identities and assignments", async () => {
    const g = newGroup();
    const { a, b } = await stableGroup(g);
    const loaded = Group.fromRecord("g", stored.at(-1)!, context());
    groups.push(loaded);
    expect(loaded).toMatchObject({ state: "Stable", generation: 1, protocolName: "range", protocolType: "consumer", leaderId: a });
    expect([...loaded.staticMembers]).toEqual([
      ["a", a],
      ["b", b],
    ]);
    expect(loaded.heartbeat(b, "b", 1)).toBe(ErrorCode.NONE);
    expect((await loaded.sync(syncReq(b, 1, [], "b"))).assignment.toString()).toBe("B");
    const back = await loaded.join(joinReq("", proto("range"), { groupInstanceId: "a" }));
    expect(back).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1 });
    expect((await loaded.sync(syncReq(back.memberId, 1, [], "a"))).assignment.toString()).toBe("A");
    expect(loaded.state).toBe("Stable");
  });
});
