// Static membership (KIP-345) with an unmodified client: kcat / librdkafka 2.0.2 with
// `-X group.instance.id=…` shares a group with a raw-protocol static member that
// heartbeats throughout. A kcat restarted with the same instance id gets its old
// assignment back and the other member never sees a rebalance; the old member id is
// fenced (FENCED_INSTANCE_ID) in JoinGroup, SyncGroup, Heartbeat, OffsetCommit,
// LeaveGroup and TxnOffsetCommit; a second live kcat with the same instance id fences
// the first (librdkafka's fatal error); a static member's shutdown sends no LeaveGroup,
// so the group rebalances only once its session.timeout.ms has passed.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { RawClient, awaitCoordinator, oracleRun, retryWhileLoading, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
const procs: ChildProcess[] = [];
beforeAll(async () => {
  broker = await startTestBroker({ "group.min.session.timeout.ms": 1000 });
});
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await broker.cleanup();
});

/** ConsumerProtocolSubscription v0: version, topics, user_data = null. */
function subscription(topics: string[]): Buffer {
  const parts = [Buffer.from([0, 0]), int32(topics.length)];
  for (const t of topics) parts.push(str(t));
  parts.push(int32(-1));
  return Buffer.concat(parts);
}
function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}
function str(s: string): Buffer {
  const body = Buffer.from(s, "utf8");
  const len = Buffer.alloc(2);
  len.writeInt16BE(body.length);
  return Buffer.concat([len, body]);
}
/** ConsumerProtocolAssignment: the partitions of each topic. */
function assignedPartitions(buf: Buffer): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  let pos = 2;
  const topics = buf.readInt32BE(pos);
  pos += 4;
  for (let i = 0; i < topics; i++) {
    const len = buf.readInt16BE(pos);
    const name = buf.subarray(pos + 2, pos + 2 + len).toString("utf8");
    pos += 2 + len;
    const n = buf.readInt32BE(pos);
    pos += 4;
    out[name] = Array.from({ length: n }, (_, j) => buf.readInt32BE(pos + 4 * j));
    pos += 4 * n;
  }
  return out;
}

interface Kcat {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function startKcat(group: string, instance: string, topic: string): Kcat {
  const proc = spawn(
    "kcat",
    ["-b", broker.bootstrap, "-u", "-G", group, "-X", `group.instance.id=${instance}`, "-X", "session.timeout.ms=3000", "-X", "heartbeat.interval.ms=250",
      "-X", "auto.offset.reset=earliest", "-X", "auto.commit.interval.ms=100", "-f", "%p:%s\n", topic],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  procs.push(proc);
  let out = "";
  let err = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, out: () => out, err: () => err, exited };
}

/** The member id and partitions of kcat's latest "% Group … rebalanced (memberid …): assigned: …" line. */
function lastAssignment(k: Kcat, topic: string): { memberId: string; partitions: number[] } | null {
  const lines = [...k.err().matchAll(/rebalanced \(memberid ([^)]+)\): assigned: (.*)/g)];
  const last = lines.at(-1);
  if (!last) return null;
  const partitions = [...(last[2] ?? "").matchAll(new RegExp(`${topic} \\[(\\d+)\\]`, "g"))].map((m) => Number(m[1]));
  return { memberId: last[1]!, partitions };
}

function produceTo(topic: string, partition: number, value: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = execFile("kcat", ["-b", broker.bootstrap, "-P", "-t", topic, "-p", String(partition)], (err: Error | null) => (err ? reject(err) : resolve()));
    p.stdin?.end(`${value}\n`);
  });
}

describe("static membership (KIP-345) with kcat / librdkafka", () => {
  it("gives a restarted static member its old assignment without a rebalance, fences stale member ids, and rebalances only after a departed member's session", async () => {
    const topic = uniqueName("static");
    const group = uniqueName("g-static");
    const c = await RawClient.connect(broker.port);
    expect((await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: topic, numPartitions: 2, replicationFactor: 1 }], timeoutMs: 5000 })).body.topics[0]?.errorCode).toBe(0);

    // kcat alone takes both partitions.
    const k1 = startKcat(group, "kc", topic);
    await waitFor(() => lastAssignment(k1, topic)?.partitions.length === 2, 20_000, "kcat's first assignment");

    // A raw static member joins: kcat (the leader) rebalances and assigns one partition each.
    const b = await RawClient.connect(broker.port);
    const joined = await b.request(ApiKey.JoinGroup, 5, {
      groupId: group,
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: "",
      groupInstanceId: "raw-b",
      protocolType: "consumer",
      protocols: [{ name: "range", metadata: subscription([topic]) }],
    });
    expect(joined.body.errorCode).toBe(ErrorCode.NONE);
    const generation = joined.body.generationId;
    const bId = joined.body.memberId;
    const synced = await b.request(ApiKey.SyncGroup, 3, { groupId: group, generationId: generation, memberId: bId, groupInstanceId: "raw-b", assignments: [] });
    const bPartitions = assignedPartitions(synced.body.assignment)[topic] ?? [];
    expect(bPartitions).toHaveLength(1);
    const kPartition = 1 - bPartitions[0]!;
    await waitFor(() => JSON.stringify(lastAssignment(k1, topic)?.partitions) === JSON.stringify([kPartition]), 20_000, "kcat's share");
    const oldKcatId = lastAssignment(k1, topic)!.memberId;

    // From here on b heartbeats; every answer must be NONE until a member's session ends.
    const beats: Array<{ at: number; code: number }> = [];
    let beating = true;
    const beatLoop = (async () => {
      while (beating && !b.closed) {
        const r = await b.request(ApiKey.Heartbeat, 3, { groupId: group, generationId: generation, memberId: bId, groupInstanceId: "raw-b" });
        beats.push({ at: Date.now(), code: r.body.errorCode });
        await new Promise((res) => setTimeout(res, 150));
      }
    })().catch(() => {}); // a failed assertion below closes the socket
    const describeKcat = async () => {
      const g = (await c.request(ApiKey.DescribeGroups, 4, { groups: [group], includeAuthorizedOperations: false })).body.groups[0]!;
      return { state: g.groupState, member: g.members.find((m) => m.groupInstanceId === "kc") };
    };
    const before = await describeKcat();
    expect(before.member?.memberId).toBe(oldKcatId);

    await produceTo(topic, kPartition, "one");
    await waitFor(() => k1.out().includes(`${kPartition}:one`), 20_000, "kcat to consume 'one'");
    await produceTo(topic, bPartitions[0]!, "for-b-only");

    // Restart kcat: a static member's shutdown sends no LeaveGroup, so nothing moves.
    k1.proc.kill("SIGTERM");
    expect(await k1.exited).toBe(0);
    expect((await describeKcat()).member?.memberId).toBe(oldKcatId);
    const k2 = startKcat(group, "kc", topic);
    await waitFor(() => lastAssignment(k2, topic) !== null, 20_000, "the restarted kcat's assignment");
    expect(lastAssignment(k2, topic)!.partitions).toEqual([kPartition]);
    const newKcatId = lastAssignment(k2, topic)!.memberId;
    expect(newKcatId).not.toBe(oldKcatId);
    await produceTo(topic, kPartition, "two");
    await waitFor(() => k2.out().includes(`${kPartition}:two`), 20_000, "the restarted kcat to consume 'two'");
    expect(k2.out()).not.toContain("for-b-only");
    const after = await describeKcat();
    expect(after).toMatchObject({ state: "Stable", member: { memberId: newKcatId, memberAssignment: before.member!.memberAssignment } });

    // The old member id, with the instance id it used to hold, is fenced everywhere.
    const FENCED = ErrorCode.FENCED_INSTANCE_ID;
    const old = { groupId: group, memberId: oldKcatId, groupInstanceId: "kc" };
    expect((await c.request(ApiKey.Heartbeat, 3, { ...old, generationId: generation })).body.errorCode).toBe(FENCED);
    expect((await c.request(ApiKey.SyncGroup, 3, { ...old, generationId: generation, assignments: [] })).body.errorCode).toBe(FENCED);
    expect((await c.request(ApiKey.JoinGroup, 5, { ...old, sessionTimeoutMs: 3000, rebalanceTimeoutMs: 3000, protocolType: "consumer", protocols: [{ name: "range", metadata: subscription([topic]) }] })).body.errorCode).toBe(FENCED);
    const offsets = [{ name: topic, partitions: [{ partitionIndex: kPartition, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: "" }] }];
    expect((await c.request(ApiKey.OffsetCommit, 7, { ...old, generationIdOrMemberEpoch: generation, topics: offsets })).body.topics[0]!.partitions[0]!.errorCode).toBe(FENCED);
    const leave = await c.request(ApiKey.LeaveGroup, 3, { groupId: group, members: [{ memberId: oldKcatId, groupInstanceId: "kc" }] });
    expect(leave.body).toMatchObject({ errorCode: 0, members: [{ memberId: oldKcatId, groupInstanceId: "kc", errorCode: FENCED }] });
    // A transactional producer committing offsets for the fenced member (KIP-447) is refused too.
    const transactionalId = uniqueName("txn-static");
    await awaitCoordinator(c, transactionalId, 1);
    const pid = (await retryWhileLoading(() => c.request(ApiKey.InitProducerId, 4, { transactionalId, transactionTimeoutMs: 10_000, producerId: -1n, producerEpoch: -1 }), (r) => r.body.errorCode)).body;
    expect(pid.errorCode).toBe(0);
    const txn = { transactionalId, producerId: pid.producerId, producerEpoch: pid.producerEpoch };
    expect((await c.request(ApiKey.AddOffsetsToTxn, 3, { ...txn, groupId: group })).body.errorCode).toBe(0);
    const txnCommit = (memberId: string, groupInstanceId: string) =>
      c.request(ApiKey.TxnOffsetCommit, 3, { ...txn, groupId: group, generationId: generation, memberId, groupInstanceId, topics: offsets });
    expect((await txnCommit(oldKcatId, "kc")).body.topics[0]!.partitions[0]!.errorCode).toBe(FENCED);
    expect((await txnCommit(newKcatId, "kc")).body.topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await c.request(ApiKey.EndTxn, 3, { ...txn, committed: false })).body.errorCode).toBe(0);

    // A second live kcat with the same instance id takes over; librdkafka stops the first with a fatal error.
    const k3 = startKcat(group, "kc", topic);
    expect(await k2.exited).not.toBe(0);
    expect(k2.err()).toMatch(/fenced/i);
    await waitFor(() => lastAssignment(k3, topic) !== null, 20_000, "the third kcat's assignment");
    expect(lastAssignment(k3, topic)!.partitions).toEqual([kPartition]);
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats.filter((x) => x.code !== ErrorCode.NONE)).toEqual([]);

    // Shutdown without LeaveGroup: the group waits for kcat's 3 s session before it rebalances.
    const k3Id = lastAssignment(k3, topic)!.memberId;
    const stoppedAt = Date.now();
    k3.proc.kill("SIGTERM");
    expect(await k3.exited).toBe(0);
    await waitFor(() => beats.some((x) => x.code !== ErrorCode.NONE), 15_000, "the rebalance after kcat's session");
    beating = false;
    await beatLoop;
    const firstChange = beats.find((x) => x.code !== ErrorCode.NONE)!;
    expect(firstChange.code).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(firstChange.at - stoppedAt).toBeGreaterThanOrEqual(2000);
    if (!oracleRun()) {
      expect(broker.logLines.some((l) => l.includes(`member ${k3Id} removed: session timeout (3000 ms) expired`))).toBe(true);
      expect(broker.logLines.some((l) => l.includes(k3Id) && l.includes("left the group"))).toBe(false);
    }
    b.close();
    c.close();
  });
});
