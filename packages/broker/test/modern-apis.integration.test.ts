// DescribeCluster, OffsetForLeaderEpoch and ListGroups v4/v5 filters (issue 15,
// "modern clients"), over raw requests as Java clients and librdkafka send them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { createTopicsReady, kafkaClient, RawClient, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

describe("DescribeCluster", () => {
  it("answers the cluster id and this broker at the listener's address; controller endpoints are refused", async () => {
    const c = await RawClient.connect(broker.port);
    const md = await c.request(ApiKey.Metadata, 8, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    for (const v of [0, 1]) {
      const r = await c.request(ApiKey.DescribeCluster, v, { includeClusterAuthorizedOperations: true, endpointType: 1 });
      expect(r.body.errorCode).toBe(ErrorCode.NONE);
      expect(r.body.clusterId).toBe(md.body.clusterId);
      expect(r.body.controllerId).toBe(md.body.controllerId);
      expect(r.body.brokers).toEqual([{ brokerId: md.body.brokers[0]!.nodeId, host: "127.0.0.1", port: broker.port, rack: null }]);
      // No authorizer: every cluster operation is allowed (bitfield non-zero, not "omitted").
      expect(r.body.clusterAuthorizedOperations).toBeGreaterThan(0);
    }
    const controllers = await c.request(ApiKey.DescribeCluster, 1, { includeClusterAuthorizedOperations: false, endpointType: 2 });
    expect(controllers.body.errorCode).toBe(ErrorCode.MISMATCHED_ENDPOINT_TYPE);
    c.close();
  });
});

describe("OffsetForLeaderEpoch", () => {
  it("answers epoch 0 with the log end offset, later epochs as unknown, and checks current_leader_epoch", async () => {
    const topic = uniqueName("ofle");
    const producer = kafkaClient(broker.bootstrap).producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic, messages: [1, 2, 3, 4, 5].map((i) => ({ value: `v${i}` })) });
    await producer.disconnect();
    const c = await RawClient.connect(broker.port);
    const ask = (partitions: Array<{ partition: number; currentLeaderEpoch: number; leaderEpoch: number }>, name = topic) =>
      c.request(ApiKey.OffsetForLeaderEpoch, 4, { replicaId: -1, topics: [{ topic: name, partitions }] });
    const r = await ask([
      { partition: 0, currentLeaderEpoch: 0, leaderEpoch: 0 },
      { partition: 0, currentLeaderEpoch: -1, leaderEpoch: 3 },
      { partition: 0, currentLeaderEpoch: 1, leaderEpoch: 0 },
      { partition: 7, currentLeaderEpoch: -1, leaderEpoch: 0 },
    ]);
    expect(r.body.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderEpoch, p.endOffset])).toEqual([
      [ErrorCode.NONE, 0, 5n],
      [ErrorCode.NONE, -1, -1n],
      [ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1n],
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1n],
    ]);
    // v2 (no replica_id), the oldest version Kafka 4.x serves (KIP-896 removed v0 and v1: Kafka closes the connection on them), answers the same.
    const v2 = await c.request(ApiKey.OffsetForLeaderEpoch, 2, { topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
    expect(v2.body.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderEpoch, p.endOffset])).toEqual([[ErrorCode.NONE, 0, 5n]]);
    c.close();
  });
});

describe("ListGroups v4/v5", () => {
  it("filters by state (KIP-518) and type (KIP-848) and reports both", async () => {
    const topic = uniqueName("lg");
    const kafka = kafkaClient(broker.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsReady(admin, { topics: [{ topic, numPartitions: 1 }] });
    const stable = uniqueName("lg-stable");
    const empty = uniqueName("lg-empty");
    await admin.setOffsets({ groupId: empty, topic, partitions: [{ partition: 0, offset: "0" }] });
    const consumer = kafka.consumer({ groupId: stable });
    await consumer.connect();
    await consumer.subscribe({ topic });
    void consumer.run({ eachMessage: async () => undefined });
    const c = await RawClient.connect(broker.port);
    const list = async (statesFilter: string[], typesFilter: string[]) => {
      const r = await c.request(ApiKey.ListGroups, 5, { statesFilter, typesFilter });
      return r.body.groups.filter((g) => g.groupId === stable || g.groupId === empty).map((g) => [g.groupId, g.groupState, g.groupType]).sort();
    };
    await waitFor(async () => (await list(["Stable"], [])).length === 1, 20_000, "the consumer group to be Stable");
    expect(await list(["stable"], [])).toEqual([[stable, "Stable", "classic"]]);
    expect(await list(["Empty"], [])).toEqual([[empty, "Empty", "classic"]]);
    expect(await list([], ["classic"])).toEqual([[empty, "Empty", "classic"], [stable, "Stable", "classic"]].sort());
    expect(await list([], ["consumer"])).toEqual([]);
    expect(await list([], [])).toHaveLength(2);
    c.close();
    await consumer.disconnect();
    await admin.disconnect();
  });
});
