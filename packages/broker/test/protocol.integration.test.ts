// Wire behaviour that kafkajs and kcat never exercise on their own, checked with a
// raw client over TCP: version negotiation, request ordering, acks=0, long polls,
// offsets, the group protocol step by step, and the control hook.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, decodeResponse, encodeRecordBatch, iterateBatches, decodeRecordBatch } from "@kappa/kafka-protocol";
import { RawClient, awaitCoordinator, embeddedOnly, oracleRun, awaitFetchable, startTestBroker, uniqueName, sleep, type TestBroker } from "./helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker({ "group.min.session.timeout.ms": 100 });
});
afterAll(async () => {
  await broker.cleanup();
});

/** ApiVersions v3+ names the client; Kafka answers INVALID_REQUEST to a name or version outside its pattern (an empty one too). */
const CLIENT_SOFTWARE = { clientSoftwareName: "raw-test", clientSoftwareVersion: "1.0" };

function batch(values: string[], baseTimestamp = BigInt(Date.now())): Buffer {
  return encodeRecordBatch({ baseTimestamp, records: values.map((v, i) => ({ key: `k${i}`, value: v, timestampDelta: i })) });
}

async function createTopic(c: RawClient, name: string, partitions = 1, configs: Array<{ name: string; value: string }> = []): Promise<void> {
  const r = await c.request(ApiKey.CreateTopics, 4, { topics: [{ name, numPartitions: partitions, replicationFactor: 1, configs }], timeoutMs: 5000 });
  expect(r.body.topics[0]?.errorCode).toBe(ErrorCode.NONE);
  // Fetch serves the partitions, not only Metadata: a fetch Kafka answers NOT_LEADER_OR_FOLLOWER is not parked.
  await awaitFetchable(c, name, partitions);
}

async function produce(c: RawClient, topic: string, records: Buffer, acks = -1, partition = 0) {
  const r = await c.request(ApiKey.Produce, 8, { acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  return r.body.responses[0]!.partitionResponses[0]!;
}

function fetchBody(topic: string, fetchOffset: bigint, opts: { maxWaitMs?: number; minBytes?: number; partitionMaxBytes?: number; isolationLevel?: number } = {}) {
  return {
    replicaId: -1,
    maxWaitMs: opts.maxWaitMs ?? 0,
    minBytes: opts.minBytes ?? 1,
    maxBytes: 50 * 1024 * 1024,
    isolationLevel: opts.isolationLevel ?? 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset, logStartOffset: -1n, partitionMaxBytes: opts.partitionMaxBytes ?? 1024 * 1024 }] }],
    forgottenTopicsData: [],
    rackId: "",
  };
}

function values(records: Buffer | null): string[] {
  const out: string[] = [];
  for (const { bytes } of iterateBatches(records ?? Buffer.alloc(0))) {
    const b = decodeRecordBatch(bytes);
    for (const r of b.records) out.push(r.value?.toString() ?? "<null>");
  }
  return out;
}

describe("version negotiation", () => {
  it("answers an ApiVersions version above its range with a v0 UNSUPPORTED_VERSION body (BROKER-SPEC §2)", async () => {
    const c = await RawClient.connect(broker.port);
    // ApiVersions v5: header v2 (client_id "test", empty tagged fields), then a body the broker must not parse.
    const req = Buffer.from([0, 0, 0, 0, 0, 18, 0, 5, 0, 0, 0, 78, 0, 4, 0x74, 0x65, 0x73, 0x74, 0, 0xff, 0xff]);
    req.writeInt32BE(req.length - 4, 0);
    c.write(req);
    const frame = await c.nextFrame();
    if (!frame) throw new Error("connection closed instead of answering");
    c.close();
    const { correlationId, body } = decodeResponse(ApiKey.ApiVersions, 0, frame);
    expect(correlationId).toBe(78);
    expect(body.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(body.apiKeys).toContainEqual({ apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 4 });
  });

  it("answers ApiVersions v3+ with INVALID_REQUEST and no api keys when the client software name or version breaks Kafka's pattern", async () => {
    const c = await RawClient.connect(broker.port);
    for (const body of [{}, { clientSoftwareName: "-raw", clientSoftwareVersion: "1" }, { clientSoftwareName: "raw test", clientSoftwareVersion: "1" }, { clientSoftwareName: "raw", clientSoftwareVersion: "1.0-" }]) {
      const r = await c.request(ApiKey.ApiVersions, 3, body);
      expect(r.body.errorCode, JSON.stringify(body)).toBe(ErrorCode.INVALID_REQUEST);
      expect(r.body.apiKeys).toEqual([]);
    }
    // The connection stays usable, as on Kafka.
    const ok = await c.request(ApiKey.ApiVersions, 3, CLIENT_SOFTWARE);
    expect(ok.body.errorCode).toBe(ErrorCode.NONE);
    expect(ok.body.apiKeys.length).toBeGreaterThan(10);
    c.close();
  });

  it("closes the connection for a version it advertises but does not serve, and for unknown api keys", async () => {
    const c = await RawClient.connect(broker.port);
    // Produce v2 uses message format v1, which this broker never serves.
    c.send(ApiKey.Produce, 2, { acks: 1, timeoutMs: 1000, topicData: [] });
    expect(await c.nextFrame()).toBeNull();
    if (!oracleRun()) expect(broker.logLines.some((l) => l.includes("unsupported Produce version 2"))).toBe(true);

    const c2 = await RawClient.connect(broker.port);
    const req = Buffer.from([0, 0, 0, 0, 0x03, 0xe7, 0, 0, 0, 0, 0, 5, 0, 0]);
    req.writeInt32BE(req.length - 4, 0);
    c2.write(req);
    expect(await c2.nextFrame()).toBeNull();
    if (!oracleRun()) expect(broker.logLines.some((l) => l.includes("unknown api key 999"))).toBe(true);
  });
});

describe("ordering and acks", () => {
  it("answers pipelined requests strictly in request order, even when an earlier one is parked", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("order");
    await createTopic(c, topic);
    const started = Date.now();
    const ids = [
      c.send(ApiKey.Fetch, 11, fetchBody(topic, 0n, { maxWaitMs: 400, minBytes: 1 })),
      c.send(ApiKey.ApiVersions, 3, CLIENT_SOFTWARE),
      c.send(ApiKey.Metadata, 8, { topics: [{ name: topic }], allowAutoTopicCreation: false }),
    ];
    const seen: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const f = await c.nextFrame();
      seen.push(f!.readInt32BE(0));
    }
    expect(seen).toEqual(ids);
    // The ApiVersions answer waited behind the parked fetch.
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    c.close();
  });

  it("sends no response for acks=0 but appends the records", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("acks0");
    await createTopic(c, topic);
    c.send(ApiKey.Produce, 8, { acks: 0, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch(["fire-and-forget"]) }] }] });
    const r = await c.request(ApiKey.ApiVersions, 3, CLIENT_SOFTWARE);
    expect(r.body.errorCode).toBe(ErrorCode.NONE);
    const f = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 0n));
    expect(values(f.body.responses[0]!.partitions[0]!.records)).toEqual(["fire-and-forget"]);
    c.close();
  });

  it("rejects invalid acks and corrupt batches with Kafka's error codes", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("bad");
    await createTopic(c, topic);
    expect((await produce(c, topic, batch(["x"]), 2)).errorCode).toBe(ErrorCode.INVALID_REQUIRED_ACKS);
    const corrupt = batch(["y"]);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 0xff, corrupt.length - 1);
    expect((await produce(c, topic, corrupt)).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect((await produce(c, topic, Buffer.concat([batch(["a"]), batch(["b"])]))).errorCode).toBe(ErrorCode.INVALID_RECORD);
    const ok = await produce(c, topic, batch(["z"]));
    expect(ok).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 0n });
    c.close();
  });
});

describe("backpressure", () => {
  embeddedOnly("its connection internals").it("stops serving a client that does not read its responses, without stalling a producer", async () => {
    const producer = await RawClient.connect(broker.port);
    const topic = uniqueName("slow");
    await createTopic(producer, topic);
    const chunk = "y".repeat(200 * 1024);
    for (let i = 0; i < 5; i++) await produce(producer, topic, batch([chunk, chunk, chunk, chunk, chunk]));
    // ~1 MiB per fetch response; 300 pipelined fetches would be ~300 MiB if all were served.
    const slow = await RawClient.connect(broker.port);
    slow.socket.pause();
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) ids.push(slow.send(ApiKey.Fetch, 11, fetchBody(topic, 0n, { partitionMaxBytes: 1 })));
    await sleep(500);
    const conn = [...broker.core.connections].find((c) => c.session.clientPort === slow.socket.localPort);
    if (!conn) throw new Error("broker-side connection not found");
    const s = conn.stats();
    expect(s.queuedRequests).toBeGreaterThan(200);
    expect(s.inFlight).toBeLessThanOrEqual(32);
    expect(s.heldResponseBytes + s.socketBufferedBytes).toBeLessThan(48 * 1024 * 1024);
    // Meanwhile a producer on another connection is served promptly.
    const started = Date.now();
    for (let i = 0; i < 20; i++) expect((await produce(producer, topic, batch([`p${i}`]))).errorCode).toBe(ErrorCode.NONE);
    expect(Date.now() - started).toBeLessThan(5000);
    // Once the client reads again, every response arrives, in order.
    slow.socket.resume();
    for (const id of ids) {
      const f = await slow.nextFrame(20_000);
      expect(f?.readInt32BE(0)).toBe(id);
    }
    expect(conn.stats()).toMatchObject({ inFlight: 0, queuedRequests: 0, heldResponseBytes: 0 });
    slow.close();
    producer.close();
  });
});

describe("fetch", () => {
  it("parks a fetch until data arrives and wakes it on append", async () => {
    const consumer = await RawClient.connect(broker.port);
    const producer = await RawClient.connect(broker.port);
    const topic = uniqueName("longpoll");
    await createTopic(producer, topic);
    const started = Date.now();
    const pending = consumer.request(ApiKey.Fetch, 11, fetchBody(topic, 0n, { maxWaitMs: 10_000, minBytes: 1 }));
    await sleep(200);
    await produce(producer, topic, batch(["wake-up"]));
    const r = await pending;
    const elapsed = Date.now() - started;
    expect(values(r.body.responses[0]!.partitions[0]!.records)).toEqual(["wake-up"]);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(3000);
    consumer.close();
    producer.close();
  });

  it("honours max_wait_ms when min_bytes is not reached, and returns what there is", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("minbytes");
    await createTopic(c, topic);
    await produce(c, topic, batch(["small"]));
    const started = Date.now();
    const r = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 0n, { maxWaitMs: 300, minBytes: 1_000_000 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(values(r.body.responses[0]!.partitions[0]!.records)).toEqual(["small"]);
    c.close();
  });

  it("returns whole batches only, always at least one, and OFFSET_OUT_OF_RANGE beyond the log", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("whole");
    await createTopic(c, topic);
    const big = "x".repeat(900);
    for (let i = 0; i < 3; i++) await produce(c, topic, batch([`${i}:${big}`]));
    const one = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 0n, { partitionMaxBytes: 1500 }));
    const p = one.body.responses[0]!.partitions[0]!;
    expect(values(p.records).map((v) => v.slice(0, 2))).toEqual(["0:"]);
    expect(p.highWatermark).toBe(3n);
    expect(p.preferredReadReplica).toBe(-1);
    const tiny = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 1n, { partitionMaxBytes: 10 }));
    expect(values(tiny.body.responses[0]!.partitions[0]!.records).map((v) => v.slice(0, 2))).toEqual(["1:"]);
    const all = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 0n, { isolationLevel: 1 }));
    expect(values(all.body.responses[0]!.partitions[0]!.records)).toHaveLength(3);
    expect(all.body.responses[0]!.partitions[0]!.abortedTransactions).toEqual([]);
    const atEnd = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 3n));
    expect(atEnd.body.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const beyond = await c.request(ApiKey.Fetch, 11, fetchBody(topic, 4n));
    expect(beyond.body.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    c.close();
  });
});

describe("ListOffsets", () => {
  it("serves latest, earliest, max-timestamp, earliest-local, latest-tiered and timestamp lookups", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("offsets");
    await createTopic(c, topic);
    await produce(c, topic, batch(["a", "b"], 1000n)); // timestamps 1000, 1001
    await produce(c, topic, batch(["c"], 5000n));
    await produce(c, topic, batch(["d"], 3000n));
    const list = async (version: number, timestamp: bigint) => {
      const r = await c.request(ApiKey.ListOffsets, version, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp }] }] });
      return r.body.topics[0]!.partitions[0]!;
    };
    expect(await list(9, -1n)).toMatchObject({ errorCode: 0, offset: 4n });
    expect(await list(9, -2n)).toMatchObject({ errorCode: 0, offset: 0n });
    expect(await list(9, -3n)).toMatchObject({ errorCode: 0, offset: 2n, timestamp: 5000n });
    expect(await list(9, -4n)).toMatchObject({ errorCode: 0, offset: 0n });
    expect(await list(9, -5n)).toMatchObject({ errorCode: 0, offset: -1n, timestamp: -1n, leaderEpoch: -1 });
    expect(await list(9, 1001n)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: 1001n });
    expect(await list(9, 4000n)).toMatchObject({ errorCode: 0, offset: 2n, timestamp: 5000n });
    expect(await list(9, 9000n)).toMatchObject({ errorCode: 0, offset: -1n, timestamp: -1n });
    expect((await list(6, -3n)).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect((await list(9, -6n)).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    c.close();
  });
});

describe("topic admin errors", () => {
  it("refuses bad names, replication factors, configs and duplicates with messages; validateOnly creates nothing", async () => {
    const c = await RawClient.connect(broker.port);
    const name = uniqueName("admin");
    const r = await c.request(ApiKey.CreateTopics, 4, {
      topics: [
        { name: "bad/name", numPartitions: 1, replicationFactor: 1 },
        { name: `${name}-rf`, numPartitions: 1, replicationFactor: 3 },
        { name: `${name}-cfg`, numPartitions: 1, replicationFactor: 1, configs: [{ name: "retention.ms", value: "soon" }] },
        { name: `${name}-unknown`, numPartitions: 1, replicationFactor: 1, configs: [{ name: "no.such.config", value: "1" }] },
        { name: `${name}-parts`, numPartitions: 0, replicationFactor: 1 },
        { name: `${name}-dry`, numPartitions: -1, replicationFactor: -1 },
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const byName = new Map(r.body.topics.map((t) => [t.name, t]));
    expect(byName.get("bad/name")?.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(byName.get(`${name}-rf`)?.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect(byName.get(`${name}-cfg`)).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG });
    expect(byName.get(`${name}-cfg`)?.errorMessage).toContain("retention.ms");
    expect(byName.get(`${name}-unknown`)?.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(byName.get(`${name}-parts`)?.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(byName.get(`${name}-dry`)?.errorCode).toBe(ErrorCode.NONE);

    const dry = await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: `${name}-validate`, numPartitions: 2, replicationFactor: 1 }], timeoutMs: 5000, validateOnly: true });
    expect(dry.body.topics[0]?.errorCode).toBe(ErrorCode.NONE);
    const meta = await c.request(ApiKey.Metadata, 8, { topics: [{ name: `${name}-validate` }], allowAutoTopicCreation: false });
    expect(meta.body.topics[0]?.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    const again = await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: `${name}-dry`, numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 });
    expect(again.body.topics[0]).toMatchObject({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `Topic '${name}-dry' already exists.` });
    c.close();
  });
});

describe("classic group protocol", () => {
  it("walks JoinGroup (MEMBER_ID_REQUIRED) → SyncGroup → Heartbeat → LeaveGroup v3 → DeleteGroups", async () => {
    const c = await RawClient.connect(broker.port);
    const group = uniqueName("grp");
    const join = (memberId: string) =>
      c.request(ApiKey.JoinGroup, 5, {
        groupId: group,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 5_000,
        memberId,
        groupInstanceId: null,
        protocolType: "consumer",
        protocols: [{ name: "range", metadata: Buffer.from("meta") }],
      });
    await awaitCoordinator(c, group);
    const first = await join("");
    expect(first.body.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const memberId = first.body.memberId;
    expect(memberId).toMatch(/^raw-test-/);
    const joined = await join(memberId);
    expect(joined.body).toMatchObject({ errorCode: 0, generationId: 1, protocolName: "range", leader: memberId, memberId });
    expect(joined.body.members).toEqual([{ memberId, groupInstanceId: null, metadata: Buffer.from("meta") }]);

    const sync = await c.request(ApiKey.SyncGroup, 3, { groupId: group, generationId: 1, memberId, groupInstanceId: null, assignments: [{ memberId, assignment: Buffer.from("plan") }] });
    expect(sync.body).toMatchObject({ errorCode: 0, assignment: Buffer.from("plan") });
    expect((await c.request(ApiKey.Heartbeat, 3, { groupId: group, generationId: 1, memberId, groupInstanceId: null })).body.errorCode).toBe(0);
    expect((await c.request(ApiKey.Heartbeat, 3, { groupId: group, generationId: 7, memberId, groupInstanceId: null })).body.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await c.request(ApiKey.Heartbeat, 3, { groupId: group, generationId: 1, memberId: "nobody", groupInstanceId: null })).body.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);

    const nogroup = uniqueName("nogroup");
    const described = await c.request(ApiKey.DescribeGroups, 4, { groups: [group, nogroup], includeAuthorizedOperations: false });
    // Kafka answers the groups of each __consumer_offsets partition together, partitions in a HashMap's order
    // (GroupCoordinatorService.describeGroups): not necessarily the request's order, so each is found by its id.
    const describedGroup = (id: string) => described.body.groups.find((g) => g.groupId === id);
    expect(described.body.groups.map((g) => g.groupId).sort()).toEqual([group, nogroup].sort());
    expect(describedGroup(group)).toMatchObject({ errorCode: 0, groupState: "Stable", protocolType: "consumer", protocolData: "range" });
    expect(describedGroup(group)?.members[0]).toMatchObject({ memberId, memberAssignment: Buffer.from("plan") });
    expect(describedGroup(nogroup)).toMatchObject({ errorCode: 0, groupState: "Dead" });
    const listed = await c.request(ApiKey.ListGroups, 2, {});
    expect(listed.body.groups).toContainEqual(expect.objectContaining({ groupId: group, protocolType: "consumer" }));

    // Offsets: wrong generation refused, right one accepted.
    const topic = uniqueName("grp-topic");
    await createTopic(c, topic);
    const commit = (generationIdOrMemberEpoch: number, offset: bigint) =>
      c.request(ApiKey.OffsetCommit, 7, { groupId: group, generationIdOrMemberEpoch, memberId, groupInstanceId: null, topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: "m" }] }] });
    expect((await commit(5, 3n)).body.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await commit(1, 3n)).body.topics[0]!.partitions[0]!.errorCode).toBe(0);
    const fetched = await c.request(ApiKey.OffsetFetch, 5, { groupId: group, topics: null, requireStable: false });
    expect(fetched.body.topics).toEqual([{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, metadata: "m", errorCode: 0 }] }]);

    expect((await c.request(ApiKey.DeleteGroups, 1, { groupsNames: [group] })).body.results[0]?.errorCode).toBe(ErrorCode.NON_EMPTY_GROUP);
    const left = await c.request(ApiKey.LeaveGroup, 3, { groupId: group, members: [{ memberId, groupInstanceId: null }, { memberId: "ghost", groupInstanceId: null }] });
    expect(left.body.members.map((m) => m.errorCode)).toEqual([0, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect((await c.request(ApiKey.DeleteGroups, 1, { groupsNames: [group] })).body.results[0]?.errorCode).toBe(0);
    expect((await c.request(ApiKey.DeleteGroups, 1, { groupsNames: [group] })).body.results[0]?.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    c.close();
  });

  it("rebalances when a second member joins, and expires a member whose session times out", async () => {
    const a = await RawClient.connect(broker.port);
    const b = await RawClient.connect(broker.port);
    const group = uniqueName("grp2");
    const join = (c: RawClient, memberId: string, sessionTimeoutMs = 10_000) =>
      c.request(ApiKey.JoinGroup, 5, { groupId: group, sessionTimeoutMs, rebalanceTimeoutMs: 3000, memberId, groupInstanceId: null, protocolType: "consumer", protocols: [{ name: "range", metadata: Buffer.alloc(0) }] });
    await awaitCoordinator(a, group);
    const aId = (await join(a, "")).body.memberId;
    expect((await join(a, aId)).body.generationId).toBe(1);
    await a.request(ApiKey.SyncGroup, 3, { groupId: group, generationId: 1, memberId: aId, groupInstanceId: null, assignments: [] });
    // b joins with a short session; a learns about the rebalance from its heartbeat.
    const bId = (await join(b, "", 300)).body.memberId;
    const bJoin = join(b, bId, 300);
    await sleep(50);
    expect((await a.request(ApiKey.Heartbeat, 3, { groupId: group, generationId: 1, memberId: aId, groupInstanceId: null })).body.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const aJoin = await join(a, aId);
    const bJoined = await bJoin;
    expect(aJoin.body.generationId).toBe(2);
    expect(bJoined.body.generationId).toBe(2);
    expect(aJoin.body.leader).toBe(aId);
    expect(aJoin.body.members.map((m) => m.memberId).sort()).toEqual([aId, bId].sort());
    expect(bJoined.body.members).toEqual([]);
    const bSync = b.request(ApiKey.SyncGroup, 3, { groupId: group, generationId: 2, memberId: bId, groupInstanceId: null, assignments: [] });
    await a.request(ApiKey.SyncGroup, 3, { groupId: group, generationId: 2, memberId: aId, groupInstanceId: null, assignments: [{ memberId: bId, assignment: Buffer.from("for-b") }] });
    expect((await bSync).body.assignment).toEqual(Buffer.from("for-b"));
    // b stops heartbeating: after its 300 ms session the group rebalances without it.
    let code = 0;
    for (let i = 0; i < 40 && code === 0; i++) {
      await sleep(50);
      code = (await a.request(ApiKey.Heartbeat, 3, { groupId: group, generationId: 2, memberId: aId, groupInstanceId: null })).body.errorCode;
    }
    expect(code).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const again = await join(a, aId);
    expect(again.body.generationId).toBe(3);
    expect(again.body.members.map((m) => m.memberId)).toEqual([aId]);
    a.close();
    b.close();
  });
});

describe("control hook", () => {
  embeddedOnly("its fault control").it("can delay responses, drop a response, and close before handling", async () => {
    const c = await RawClient.connect(broker.port);
    const removeDelay = broker.control.delayResponses(ApiKey.ApiVersions, 300);
    const started = Date.now();
    await c.request(ApiKey.ApiVersions, 3, CLIENT_SOFTWARE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    removeDelay();

    const topic = uniqueName("ctl");
    await createTopic(c, topic);
    broker.control.dropResponseOnce(ApiKey.Produce);
    c.send(ApiKey.Produce, 8, { acks: 1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch(["kept"]) }] }] });
    expect(await c.nextFrame()).toBeNull();
    const c2 = await RawClient.connect(broker.port);
    const f = await c2.request(ApiKey.Fetch, 11, fetchBody(topic, 0n));
    // The request took effect even though its response was lost.
    expect(values(f.body.responses[0]!.partitions[0]!.records)).toEqual(["kept"]);

    broker.control.closeOnce(ApiKey.Metadata);
    c2.send(ApiKey.Metadata, 8, { topics: null, allowAutoTopicCreation: false });
    expect(await c2.nextFrame()).toBeNull();
  });
});
