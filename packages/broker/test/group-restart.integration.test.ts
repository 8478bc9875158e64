// Group metadata survives a broker restart, as Kafka's __consumer_offsets keeps it
// (src/groups/group-metadata-log.ts): a kafkajs consumer caught mid-batch by a restart
// commits that batch afterwards and carries on, without duplicates and without a
// rebalance; after kill -9 a static group comes back at its generation with its
// members' instance ids and assignments, and a restarted static member rejoins
// without a rebalance.
import type { ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { afterAll, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { embeddedOnly, kafkaClient, killHard, newDataDir, RawClient, startChildBroker, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

async function describeGroup(port: number, groupId: string) {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: false });
    return r.body.groups[0]!;
  } finally {
    c.close();
  }
}

embeddedOnly("restarts of its data dir").describe("group metadata across a broker restart", () => {
  it("lets a kafkajs consumer caught mid-batch by a restart commit and carry on, without duplicates or a rebalance", async () => {
    const dir = await newDataDir();
    const topic = uniqueName("restart-live");
    const groupId = uniqueName("g-live");
    let broker: TestBroker = await startTestBroker({}, dir);
    const port = broker.port;
    const kafka = kafkaClient(broker.bootstrap);
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, sessionTimeout: 10_000, heartbeatInterval: 500 });
    let release: () => void = () => {};
    try {
      await producer.connect();
      await producer.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ value: `r${i}` })) });
      await producer.disconnect();

      const seen: string[] = [];
      let joins = 0;
      consumer.on(consumer.events.GROUP_JOIN, () => joins++);
      const gate = new Promise<void>((r) => (release = r));
      let holding = false;
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const v = message.value?.toString() ?? "";
          seen.push(v);
          // Hold the batch (r0..r19 arrive in one fetch) half-way: nothing of it is committed yet.
          if (v === "r9" && !holding) {
            holding = true;
            await gate;
          }
        },
      });
      await waitFor(() => holding, 20_000, "the consumer to reach r9");
      const before = await describeGroup(port, groupId);
      expect(before.groupState).toBe("Stable");
      const memberId = before.members[0]!.memberId;

      await broker.stop();
      broker = await startTestBroker({ port }, dir);
      const after = await describeGroup(port, groupId);
      expect(after).toMatchObject({ groupState: "Stable", protocolType: "consumer", protocolData: before.protocolData });
      expect(after.members.map((m) => [m.memberId, m.memberAssignment])).toEqual([[memberId, before.members[0]!.memberAssignment]]);

      release();
      const p2 = kafkaClient(broker.bootstrap).producer();
      await p2.connect();
      await p2.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${20 + i}` })) });
      await p2.disconnect();
      await waitFor(() => seen.includes("r29"), 30_000, "r29");
      // The held batch's commit was accepted by the restarted broker: nothing came twice.
      expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`));
      expect(joins).toBe(1);
      const end = await describeGroup(port, groupId);
      expect(end.members.map((m) => m.memberId)).toEqual([memberId]);
    } finally {
      release();
      await consumer.disconnect().catch(() => {});
      await broker.cleanup();
    }
  });

  it("brings a static group back after kill -9 at its generation, and a restarted static member rejoins without a rebalance", async () => {
    const dir = await newDataDir();
    const groupId = uniqueName("g-static");
    const args = (port: number) => ["--port", String(port), "--data-dir", dir, "--override", "group.initial.rebalance.delay.ms=0", "--override", "group.min.session.timeout.ms=1000"];
    let child = await startChildBroker(args(0), children);
    const port = child.port;
    const join = (c: RawClient, instance: string, memberId = "") =>
      c.request(ApiKey.JoinGroup, 5, {
        groupId,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 5_000,
        memberId,
        groupInstanceId: instance,
        protocolType: "consumer",
        protocols: [{ name: "range", metadata: Buffer.from(`sub-${instance}`) }],
      });
    const a = await RawClient.connect(port);
    const ra = await join(a, "inst-a");
    expect(ra.body.errorCode).toBe(ErrorCode.NONE);
    const b = await RawClient.connect(port);
    const rbPending = join(b, "inst-b");
    // a learns of b's arrival from its heartbeat and rejoins with its member id.
    await waitFor(async () => (await a.request(ApiKey.Heartbeat, 3, { groupId, generationId: 1, memberId: ra.body.memberId, groupInstanceId: "inst-a" })).body.errorCode === ErrorCode.REBALANCE_IN_PROGRESS, 10_000, "a rebalance");
    const ra2 = await join(a, "inst-a", ra.body.memberId);
    const rb = await rbPending;
    expect([ra2.body.generationId, rb.body.generationId]).toEqual([2, 2]);
    const aId = ra2.body.memberId;
    const bId = rb.body.memberId;
    const leader = ra2.body.leader === aId ? a : b;
    const bSync = b.request(ApiKey.SyncGroup, 3, { groupId, generationId: 2, memberId: bId, groupInstanceId: "inst-b", assignments: leader === b ? [{ memberId: aId, assignment: Buffer.from("for-a") }, { memberId: bId, assignment: Buffer.from("for-b") }] : [] });
    const aSync = a.request(ApiKey.SyncGroup, 3, { groupId, generationId: 2, memberId: aId, groupInstanceId: "inst-a", assignments: leader === a ? [{ memberId: aId, assignment: Buffer.from("for-a") }, { memberId: bId, assignment: Buffer.from("for-b") }] : [] });
    expect([(await aSync).body.assignment.toString(), (await bSync).body.assignment.toString()]).toEqual(["for-a", "for-b"]);
    a.close();
    b.close();

    // The leader's SyncGroup was answered, so the assignment is on disk: kill -9 now.
    await killHard(child);
    child = await startChildBroker(args(port), children);
    const g = await describeGroup(port, groupId);
    expect(g).toMatchObject({ errorCode: 0, groupState: "Stable", protocolType: "consumer", protocolData: "range" });
    expect(g.members.map((m) => [m.memberId, m.groupInstanceId, m.memberAssignment.toString(), m.memberMetadata.toString()]).sort()).toEqual(
      [
        [aId, "inst-a", "for-a", "sub-inst-a"],
        [bId, "inst-b", "for-b", "sub-inst-b"],
      ].sort(),
    );

    // b carries on with its member id and generation; a restarted and rejoins by its instance id.
    const b2 = await RawClient.connect(port);
    expect((await b2.request(ApiKey.Heartbeat, 3, { groupId, generationId: 2, memberId: bId, groupInstanceId: "inst-b" })).body.errorCode).toBe(ErrorCode.NONE);
    const a2 = await RawClient.connect(port);
    const back = await join(a2, "inst-a");
    expect(back.body).toMatchObject({ errorCode: 0, generationId: 2, members: [] });
    expect(back.body.memberId).not.toBe(aId);
    const synced = await a2.request(ApiKey.SyncGroup, 3, { groupId, generationId: 2, memberId: back.body.memberId, groupInstanceId: "inst-a", assignments: [] });
    expect(synced.body).toMatchObject({ errorCode: 0, assignment: Buffer.from("for-a") });
    expect((await b2.request(ApiKey.Heartbeat, 3, { groupId, generationId: 2, memberId: bId, groupInstanceId: "inst-b" })).body.errorCode).toBe(ErrorCode.NONE);
    expect((await a2.request(ApiKey.Heartbeat, 3, { groupId, generationId: 2, memberId: aId, groupInstanceId: "inst-a" })).body.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);

    // The replacement is durable too: after another kill -9 the new member id is the one that counts.
    await killHard(child);
    child = await startChildBroker(args(port), children);
    const a3 = await RawClient.connect(port);
    expect((await a3.request(ApiKey.Heartbeat, 3, { groupId, generationId: 2, memberId: back.body.memberId, groupInstanceId: "inst-a" })).body.errorCode).toBe(ErrorCode.NONE);
    expect((await a3.request(ApiKey.Heartbeat, 3, { groupId, generationId: 2, memberId: aId, groupInstanceId: "inst-a" })).body.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    a2.close();
    b2.close();
    a3.close();
    await killHard(child);
    await rm(dir, { recursive: true, force: true });
  });
});
