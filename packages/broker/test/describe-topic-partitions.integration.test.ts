// DescribeTopicPartitions (API 75, KIP-966) as Kafka 4.1 answers it: name order,
// the cursor and next_cursor, the partition limit (the request's and
// max.request.partition.size.limit), errors for named topics, and DESCRIBE on
// TOPIC (unauthorized topics left out of a listing, answered
// TOPIC_AUTHORIZATION_FAILED when named). Raw clients over TCP (no client of the
// project's pins sends API 75: kafkajs 2.2.4 and librdkafka 2.0.2 predate it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, ZERO_UUID, type DescribeTopicPartitionsResponse } from "@kappa/kafka-protocol";
import { PrincipalClient, saslAdminBroker, user } from "./acl-helpers.ts";
import { RawClient, awaitTopicReady, startTestBroker, waitFor, type TestBroker } from "./helpers.ts";

const ADMIN = user("admin");
const ALICE = user("alice");

let open: TestBroker;
let secured: TestBroker;
beforeAll(async () => {
  open = await startTestBroker({ "auto.create.topics.enable": false, "max.request.partition.size.limit": 7 });
  secured = await startTestBroker({ ...saslAdminBroker(ADMIN, [ALICE]), "auto.create.topics.enable": false });
});
afterAll(async () => {
  await open?.cleanup();
  await secured?.cleanup();
});

type Cursor = { topicName: string; partitionIndex: number } | null;

async function describeTp(c: RawClient | PrincipalClient, topics: string[], limit: number, cursor: Cursor = null): Promise<DescribeTopicPartitionsResponse> {
  const body = { topics: topics.map((name) => ({ name })), responsePartitionLimit: limit, cursor };
  if (c instanceof PrincipalClient) return c.call(ApiKey.DescribeTopicPartitions, 0, body);
  return (await c.request(ApiKey.DescribeTopicPartitions, 0, body)).body;
}

async function create(c: RawClient | PrincipalClient, topics: Array<[string, number]>): Promise<void> {
  const body = { topics: topics.map(([name, n]) => ({ name, numPartitions: n, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 10_000, validateOnly: false };
  const r = c instanceof PrincipalClient ? await c.call(ApiKey.CreateTopics, 4, body) : (await c.request(ApiKey.CreateTopics, 4, body)).body;
  for (const t of r.topics) expect(t.errorCode, t.name).toBe(ErrorCode.NONE);
  // Kafka's broker hosts a created topic a moment after CreateTopics answers (helpers.ts awaitTopicReady).
  for (const [name] of topics) await (c instanceof PrincipalClient ? c.awaitTopic(name) : awaitTopicReady(c, name));
}

const shape = (r: DescribeTopicPartitionsResponse) => ({
  topics: r.topics.map((t) => [t.name, t.errorCode, t.partitions.map((p) => p.partitionIndex).join(",")]),
  next: r.nextCursor ? `${r.nextCursor.topicName}/${r.nextCursor.partitionIndex}` : null,
});

describe("DescribeTopicPartitions", () => {
  it("pages through every topic in name order with the cursor, and describes each partition as Metadata does", async () => {
    const c = await RawClient.connect(open.port);
    try {
      await create(c, [["dtp-c", 3], ["dtp-a", 2], ["dtp-b", 4]]);
      const first = await describeTp(c, [], 4);
      expect(shape(first)).toEqual({ topics: [["dtp-a", 0, "0,1"], ["dtp-b", 0, "0,1"]], next: "dtp-b/2" });
      const a = first.topics[0]!;
      // The topic's id, as Metadata (v10+) reports it.
      const meta = await c.request(ApiKey.Metadata, 12, { topics: [{ topicId: ZERO_UUID, name: "dtp-a" }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      expect(a.topicId).not.toBe(ZERO_UUID);
      expect(a.topicId).toBe(meta.body.topics[0]?.topicId);
      expect(a.isInternal).toBe(false);
      expect(a.partitions[1]).toEqual({
        errorCode: 0,
        partitionIndex: 1,
        leaderId: 1,
        leaderEpoch: 0,
        replicaNodes: [1],
        isrNodes: [1],
        eligibleLeaderReplicas: [],
        lastKnownElr: [],
        offlineReplicas: [],
      });
      expect(a.topicAuthorizedOperations).toBeGreaterThan(0);
      // Next page from the cursor: the rest of dtp-b, then dtp-c; the limit ends exactly at dtp-c's end: no cursor.
      const second = await describeTp(c, [], 5, first.nextCursor);
      expect(shape(second)).toEqual({ topics: [["dtp-b", 0, "2,3"], ["dtp-c", 0, "0,1,2"]], next: null });
      // Used up exactly at a topic boundary with topics left: the cursor names the next topic at 0.
      expect(shape(await describeTp(c, [], 2))).toEqual({ topics: [["dtp-a", 0, "0,1"]], next: "dtp-b/0" });
      // The broker's max.request.partition.size.limit (7 here) caps the request's limit; a limit below 1 counts as 1.
      expect(shape(await describeTp(c, [], 100))).toEqual({ topics: [["dtp-a", 0, "0,1"], ["dtp-b", 0, "0,1,2,3"], ["dtp-c", 0, "0"]], next: "dtp-c/1" });
      expect(shape(await describeTp(c, [], 0))).toEqual({ topics: [["dtp-a", 0, "0"]], next: "dtp-a/1" });
      // A cursor past a topic's last partition gives that topic with no partitions.
      expect(shape(await describeTp(c, [], 10, { topicName: "dtp-c", partitionIndex: 9 }))).toEqual({ topics: [["dtp-c", 0, ""]], next: null });
    } finally {
      c.close();
    }
  });

  it("named topics: unknown and illegal names are answered with errors that cost no partitions; the cursor must be among them", async () => {
    const c = await RawClient.connect(open.port);
    try {
      await create(c, [["named-x", 2]]);
      const r = await describeTp(c, ["named-x", "no-such-topic", "bad name!", "named-x"], 10);
      expect(shape(r)).toEqual({
        topics: [
          ["bad name!", ErrorCode.INVALID_TOPIC_EXCEPTION, ""],
          ["named-x", 0, "0,1"],
          ["no-such-topic", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ""],
        ],
        next: null,
      });
      expect(r.topics.find((t) => t.name === "no-such-topic")?.topicId).toBe(ZERO_UUID);
      // Names before the cursor's topic are skipped.
      expect(shape(await describeTp(c, ["named-x", "a-before"], 10, { topicName: "named-x", partitionIndex: 1 }))).toEqual({ topics: [["named-x", 0, "1"]], next: null });
      // Kafka's InvalidRequestException: every named topic gets INVALID_REQUEST.
      const missing = await describeTp(c, ["named-x"], 10, { topicName: "other", partitionIndex: 0 });
      expect(shape(missing)).toEqual({ topics: [["named-x", ErrorCode.INVALID_REQUEST, ""]], next: null });
      const negative = await describeTp(c, ["named-x"], 10, { topicName: "named-x", partitionIndex: -1 });
      expect(shape(negative)).toEqual({ topics: [["named-x", ErrorCode.INVALID_REQUEST, ""]], next: null });
    } finally {
      c.close();
    }
  });

  it("needs DESCRIBE on the topic: a listing leaves the others out, named ones get TOPIC_AUTHORIZATION_FAILED after the rest", async () => {
    const admin = await PrincipalClient.connect(secured.port, ADMIN);
    const alice = await PrincipalClient.connect(secured.port, ALICE);
    try {
      await create(admin, [["sec-open", 1], ["sec-hidden", 2]]);
      const acl = await admin.call(ApiKey.CreateAcls, 1, {
        creations: [{ resourceType: 2, resourceName: "sec-open", resourcePatternType: 3, principal: `User:${ALICE.name}`, host: "*", operation: 8, permissionType: 3 }],
      });
      expect(acl.results[0]?.errorCode).toBe(ErrorCode.NONE);
      // Kafka's broker applies an ACL a moment after the controller committed it (CreateAcls has answered by then).
      await waitFor(async () => (await describeTp(alice, [], 100)).topics.length > 0, 10_000, "alice's DESCRIBE grant to apply");
      expect(shape(await describeTp(alice, [], 100))).toEqual({ topics: [["sec-open", 0, "0"]], next: null });
      const named = await describeTp(alice, ["sec-hidden", "sec-open", "sec-none"], 100);
      expect(shape(named)).toEqual({
        topics: [
          ["sec-open", 0, "0"],
          ["sec-hidden", ErrorCode.TOPIC_AUTHORIZATION_FAILED, ""],
          ["sec-none", ErrorCode.TOPIC_AUTHORIZATION_FAILED, ""],
        ],
        next: null,
      });
      expect(named.topics[1]?.topicId).toBe(ZERO_UUID);
      // Alice may only describe: bit 8 (DESCRIBE) and nothing else.
      expect(named.topics[0]?.topicAuthorizedOperations).toBe(1 << 8);
      expect(shape(await describeTp(admin, [], 100))).toEqual({ topics: [["sec-hidden", 0, "0,1"], ["sec-open", 0, "0"]], next: null });
    } finally {
      admin.close();
      alice.close();
    }
  });
});
