// Incremental fetch sessions (KIP-227) over raw Fetch v11 requests, the session
// cache's eviction rules, and kcat consuming across many fetches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, encodeRecordBatch } from "@kappa/kafka-protocol";
import { RawClient, awaitFetchable, embeddedOnly, startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";
import { runKcat } from "./sasl-helpers.ts";

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

type Part = { partition: number; fetchOffset: bigint };

async function fetch(c: RawClient, sessionId: number, sessionEpoch: number, topics: Array<{ topic: string; partitions: Part[] }>, forgotten: Array<{ topic: string; partitions: number[] }> = []) {
  const r = await c.request(ApiKey.Fetch, 11, {
    replicaId: -1, maxWaitMs: 50, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId, sessionEpoch,
    topics: topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => ({ ...p, partitionMaxBytes: 1 << 20, logStartOffset: -1n, currentLeaderEpoch: -1 })) })),
    forgottenTopicsData: forgotten, rackId: "",
  });
  return {
    errorCode: r.body.errorCode,
    sessionId: r.body.sessionId,
    partitions: r.body.responses.flatMap((t) => t.partitions.map((p) => `${t.topic}/${p.partitionIndex}:${p.records?.length ? "data" : "none"}`)),
  };
}

async function produce(c: RawClient, topic: string, n: number): Promise<void> {
  const r = await c.request(ApiKey.Produce, 8, {
    acks: -1, timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch({ baseTimestamp: BigInt(Date.now()), records: Array.from({ length: n }, (_, i) => ({ value: `v${i}` })) }) }] }],
  });
  expect(r.body.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
}

describe("fetch sessions (KIP-227)", () => {
  it("creates a session, answers incremental fetches with news only, checks epochs, forgets partitions and closes", async () => {
    const a = uniqueName("fs-a");
    const b = uniqueName("fs-b");
    const c = await RawClient.connect(broker.port);
    await c.request(ApiKey.CreateTopics, 4, { topics: [a, b].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 5000 });
    // Both partitions served by Fetch first: a partition that answered an error in the full fetch and NONE later
    // is news, which an incremental fetch answers (Kafka's broker serves a new partition a moment after Metadata shows it).
    await awaitFetchable(c, a);
    await awaitFetchable(c, b);
    await produce(c, a, 3);

    const full = await fetch(c, 0, 0, [{ topic: a, partitions: [{ partition: 0, fetchOffset: 0n }] }, { topic: b, partitions: [{ partition: 0, fetchOffset: 0n }] }]);
    expect(full.errorCode).toBe(ErrorCode.NONE);
    expect(full.sessionId).toBeGreaterThan(0);
    expect(full.partitions).toEqual([`${a}/0:data`, `${b}/0:none`]);
    const id = full.sessionId;

    // a moves to offset 3 (its end): nothing new anywhere.
    expect(await fetch(c, id, 1, [{ topic: a, partitions: [{ partition: 0, fetchOffset: 3n }] }])).toEqual({ errorCode: 0, sessionId: id, partitions: [] });
    // New data in b: only b is answered, without b being named in the request.
    await produce(c, b, 2);
    expect(await fetch(c, id, 2, [])).toEqual({ errorCode: 0, sessionId: id, partitions: [`${b}/0:data`] });
    // A stale epoch and an unknown session are refused at the top level.
    expect((await fetch(c, id, 2, [])).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect((await fetch(c, 0x7ffffff0, 1, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    // Forget b: its new data is no longer answered; a's is.
    await produce(c, b, 1);
    await produce(c, a, 1);
    expect(await fetch(c, id, 3, [{ topic: b, partitions: [{ partition: 0, fetchOffset: 2n }] }], [{ topic: b, partitions: [0] }])).toEqual({ errorCode: 0, sessionId: id, partitions: [`${a}/0:data`] });
    // Epoch -1 closes the session (a sessionless full fetch); the id is gone afterwards.
    const closing = await fetch(c, id, -1, [{ topic: a, partitions: [{ partition: 0, fetchOffset: 0n }] }]);
    expect([closing.sessionId, closing.partitions]).toEqual([0, [`${a}/0:data`]]);
    expect((await fetch(c, id, 4, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    c.close();
  });

  // Kafka 4.x splits its cache into 8 shards of max.incremental.fetch.session.cache.slots / 8 slots and puts
  // each new session in the next shard in turn (BrokerServer, FetchSessionCache.getNextCacheShard): 2 slots
  // there means no session at all, and a full shard cannot be set up from outside. This broker keeps one cache.
  embeddedOnly("a 2-slot fetch-session cache; Kafka 4.x shards its cache 8 ways").it("evicts by Kafka's rules when the cache is full (2 slots here)", async () => {
    const small = await startTestBroker({ "max.incremental.fetch.session.cache.slots": 2 });
    try {
      const t = uniqueName("fs-evict");
      const c = await RawClient.connect(small.port);
      await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: t, numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 });
      const parts = (n: number) => [{ topic: t, partitions: Array.from({ length: n }, (_, i) => ({ partition: i, fetchOffset: 0n })) }];
      const one = await fetch(c, 0, 0, parts(1));
      const two = await fetch(c, 0, 0, parts(2));
      expect(one.sessionId > 0 && two.sessionId > 0).toBe(true);
      // Full, nothing stale: a 3-partition session evicts the smallest (one); a 1-partition one is not cached.
      const three = await fetch(c, 0, 0, parts(3));
      expect(three.sessionId).toBeGreaterThan(0);
      expect((await fetch(c, one.sessionId, 1, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
      expect((await fetch(c, 0, 0, parts(1))).sessionId).toBe(0);
      expect((await fetch(c, two.sessionId, 1, [])).errorCode).toBe(ErrorCode.NONE);
      c.close();
    } finally {
      await small.cleanup();
    }
  });

  it("kcat consumes a topic across many fetches", async () => {
    const t = uniqueName("fs-kcat");
    const input = Array.from({ length: 3000 }, (_, i) => `m${i}-${"x".repeat(i % 100)}`);
    const p = await runKcat(broker.bootstrap, ["-P", "-t", t], input.join("\n") + "\n", 30_000);
    expect(p.code).toBe(0);
    const k = await runKcat(broker.bootstrap, ["-C", "-t", t, "-o", "beginning", "-e", "-q", "-X", "message.max.bytes=4096", "-X", "fetch.max.bytes=4096", "-X", "fetch.message.max.bytes=2048", "-X", "fetch.wait.max.ms=10"], undefined, 60_000);
    expect({ code: k.code, stderr: k.stderr }).toEqual({ code: 0, stderr: "" });
    expect(k.stdout.trim().split("\n")).toEqual(input);
  });
});
