import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "@kappa/kafka-protocol";
import { Group, type Protocol } from "./group.ts";

const groups: Group[] = [];
// Members that join "at once" need the initial delay to land in one generation, as in Kafka.
function newGroup(initialRebalanceDelayMs = 50): Group {
  const g = new Group("g", { initialRebalanceDelayMs, onLog: () => {} });
  groups.push(g);
  return g;
}
afterEach(() => {
  for (const g of groups.splice(0)) g.shutdown();
});

const proto = (...names: string[]): Protocol[] => names.map((name) => ({ name, metadata: Buffer.from(name) }));
const join = (g: Group, memberId: string, protocols: Protocol[], protocolType = "consumer") =>
  g.join({ memberId, groupInstanceId: null, clientId: "c", clientHost: "/127.0.0.1", sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 2_000, protocolType, protocols, requireKnownMemberId: false });

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
    const r = await g.join({ memberId: "", groupInstanceId: null, clientId: "client", clientHost: "/h", sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 1000, protocolType: "consumer", protocols: proto("range"), requireKnownMemberId: true });
    expect(r.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(r.memberId).toMatch(/^client-/);
    expect(g.state).toBe("Empty");
    expect((await join(g, r.memberId, proto("range"))).errorCode).toBe(ErrorCode.NONE);
  });

  it("moves to Stable on the leader's SyncGroup and rebalances when the leader rejoins", async () => {
    const g = newGroup();
    const [ra, rb] = await Promise.all([join(g, "", proto("range")), join(g, "", proto("range"))]);
    const follower = g.sync({ memberId: rb.memberId, generationId: 1, protocolType: null, protocolName: null, assignments: [] });
    const leader = await g.sync({ memberId: ra.memberId, generationId: 1, protocolType: null, protocolName: null, assignments: [{ memberId: rb.memberId, assignment: Buffer.from("b") }] });
    expect(leader.assignment).toEqual(Buffer.alloc(0));
    expect((await follower).assignment).toEqual(Buffer.from("b"));
    expect(g.state).toBe("Stable");
    expect(g.heartbeat(rb.memberId, 1)).toBe(ErrorCode.NONE);
    const rejoin = join(g, ra.memberId, proto("range"));
    expect(g.state).toBe("PreparingRebalance");
    expect(g.heartbeat(rb.memberId, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(g.validateOffsetCommit(rb.memberId, 1)).toBe(ErrorCode.NONE); // commits allowed while preparing
    const rb2 = await join(g, rb.memberId, proto("range"));
    expect((await rejoin).generationId).toBe(2);
    expect(rb2.generationId).toBe(2);
    expect(g.validateOffsetCommit(rb.memberId, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(g.validateOffsetCommit(rb.memberId, 1)).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it("removes members that do not rejoin within the rebalance timeout, and becomes Empty when the last one leaves", async () => {
    const g = newGroup();
    const [ra, rb] = await Promise.all([join(g, "", proto("range")), join(g, "", proto("range"))]);
    await Promise.all([
      g.sync({ memberId: ra.memberId, generationId: 1, protocolType: null, protocolName: null, assignments: [] }),
      g.sync({ memberId: rb.memberId, generationId: 1, protocolType: null, protocolName: null, assignments: [] }),
    ]);
    const started = Date.now();
    const r = await g.join({ memberId: ra.memberId, groupInstanceId: null, clientId: "c", clientHost: "/h", sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 200, protocolType: "consumer", protocols: proto("range", "x"), requireKnownMemberId: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900); // b's rebalance timeout (2 s) is the group's
    expect(r.members.map((m) => m.memberId)).toEqual([ra.memberId]);
    expect(g.heartbeat(rb.memberId, 2)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.leave(ra.memberId)).toBe(ErrorCode.NONE);
    expect(g.state).toBe("Empty");
    expect(g.generation).toBe(3);
  });
});
