import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORE_APIS } from "@kappa/broker";
import type { Db } from "@kappa/catalog";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { approvedProduct, approvedSubscription, KAFKA_TARGETS, openTestDatabase, seedPeople, startKafkaTarget, startTargetStack, startTestBroker, startWorker, stopSaslStack, waitFor, type KafkaTarget, type TestBroker } from "./helpers.ts";

/* Lag, time lag, offsets and storage figures, on the embedded broker and on the suite's 3-node Apache Kafka cluster. */
describe.each(KAFKA_TARGETS)("observation on %s", (kind) => {
  let target: KafkaTarget;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  let running: ReturnType<typeof startWorker>;

  beforeAll(async () => {
    // The embedded broker with tiered storage on and its copy task every 200 ms; Apache Kafka's is every 5 s (cluster.properties).
    target = await startKafkaTarget(kind, { "remote.log.storage.system.enable": true, "remote.log.manager.task.interval.ms": 200 });
    ({ database, db, people, running } = await startTargetStack(target));
  });

  afterAll(() => stopSaslStack({ running, database, broker: target }));

  it("records end offsets, throughput, a subscriber group's committed offsets, lag per partition and time lag, and local and remote bytes", async () => {
    const product = await approvedProduct(db, people, { partitions: 3 });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 5_000, "topic created");
    const { account, subscription } = await approvedSubscription(db, people, product.id, `pay-${Date.now().toString(36)}`);
    const kafka = target.client();
    const producer = kafka.producer();
    await producer.connect();
    const send = async (n: number, from: number) => {
      for (let p = 0; p < 3; p++) {
        await producer.send({ topic: product.topicName, messages: Array.from({ length: n }, (_, i) => ({ partition: p, value: `v${from + i}` })) });
      }
    };
    await send(40, 0); // 120 records, 40 per partition
    const first = await running.worker.observer.observeOnce();
    expect(first.partitions).toBeGreaterThanOrEqual(3);

    // A consumer of the subscriber's account reads everything, commits, and stays in the group.
    const groupId = `${account.name}.reconciler`;
    const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: product.topicName, fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommitInterval: 100, eachMessage: async () => void seen++ });
    await waitFor(() => seen >= 120, 15_000, "consumer to read 120 records");
    await waitFor(async () => {
      await running.worker.observer.observeOnce();
      const row = await db.consumerGroupObservation.findUnique({ where: { groupId_topic: { groupId, topic: product.topicName } } });
      return row !== null && row.totalLag === 0n ? row : null;
    }, 10_000, "lag 0 after consuming");
    const caughtUp = await db.consumerGroupObservation.findUniqueOrThrow({ where: { groupId_topic: { groupId, topic: product.topicName } } });
    expect(caughtUp.subscriptionId).toBe(subscription.id);
    expect(caughtUp.state).toBe("Stable");
    expect(caughtUp.members).toBe(1);
    expect(caughtUp.timeLagMs).toBe(0n);
    // A classic group's assignment: its one member holds the three partitions.
    const owners = (caughtUp.partitionDetail as Array<{ partition: number; owner?: { clientId: string } }>).map((d) => d.owner?.clientId);
    expect(owners).toHaveLength(3);
    for (const o of owners) expect(o).toBeTruthy();

    // The consumer stops; 30 more records per partition arrive: lag 90, and it shows per partition.
    await consumer.stop();
    await consumer.disconnect();
    await new Promise((r) => setTimeout(r, 300));
    await send(30, 40);
    await running.worker.observer.observeOnce();
    const behind = await db.consumerGroupObservation.findUniqueOrThrow({ where: { groupId_topic: { groupId, topic: product.topicName } } });
    expect(behind.totalLag).toBe(90n);
    expect(behind.state).toBe("Empty");
    expect(behind.partitionDetail).toEqual([0, 1, 2].map((partition) => ({ partition, committedOffset: "40", endOffset: "70", lag: "30" })));
    expect(behind.timeLagMs).not.toBeNull();
    expect(Number(behind.timeLagMs)).toBeGreaterThan(0);

    const topic = await db.topicObservation.findUniqueOrThrow({ where: { topic: product.topicName } });
    expect(topic.productId).toBe(product.id);
    expect(topic.partitions).toBe(3);
    expect(topic.endOffset).toBe(210n);
    expect(topic.earliestOffset).toBe(0n);
    // Both answer ListOffsets −4 and −5 (a topic without tiered storage: local start = log start, nothing tiered).
    expect(topic.earliestLocalOffset).toBe(0n);
    expect(topic.latestTieredOffset).toBe(-1n);
    expect(topic.messagesPerSecond).not.toBeNull();
    expect(topic.messagesPerSecond!).toBeGreaterThan(0);
    // Local bytes from DescribeLogDirs (the largest replica); remote bytes from the embedded
    // broker's read-only kappa.remote.log.size.bytes topic config, on Apache Kafka from the
    // segments in __remote_log_metadata (0 on both: this topic is not tiered).
    expect(topic.localBytes).not.toBeNull();
    expect(topic.localBytes!).toBeGreaterThan(0n);
    expect(topic.remoteBytes).toBe(0n);

    const history = await db.consumerGroupObservationSample.findMany({ where: { groupId, topic: product.topicName } });
    expect(history.length).toBeGreaterThanOrEqual(1);
    expect(history.at(-1)?.totalLag).toBe(90n);
    const topicHistory = await db.topicObservationSample.findMany({ where: { topic: product.topicName } });
    expect(topicHistory.at(-1)?.endOffset).toBe(210n);
    await producer.disconnect();
  });

  it("shows a group of the consumer protocol (KIP-848, group.protocol=consumer) with its state, members and assignment, not Dead", async () => {
    const product = await approvedProduct(db, people, { partitions: 2 });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 5_000, "topic created");
    const { account } = await approvedSubscription(db, people, product.id, `kip-${Date.now().toString(36)}`);
    const groupId = `${account.name}.kip848`;
    // A member of the consumer protocol, as a Kafka 4.x consumer speaks it to the group's coordinator.
    const [host, port] = target.brokers[0]!.split(":");
    const open = (h: string, p: number) => KafkaConnection.open({ host: h, port: p, clientId: "kip848-member", sasl: target.sasl, tls: null, connectTimeoutMs: 5_000, requestTimeoutMs: 15_000 });
    const any = await open(host!, Number(port));
    const found = await waitFor(async () => {
      const r = await any.request(ApiKey.FindCoordinator, { key: groupId, keyType: 0, coordinatorKeys: [groupId] }, any.pickVersion(ApiKey.FindCoordinator, 0, 4));
      const c = r.coordinators?.[0] ?? { errorCode: r.errorCode, host: r.host, port: r.port };
      return c.errorCode === ErrorCode.NONE ? c : null;
    }, 20_000, "the group's coordinator");
    any.close();
    const conn = await open(found.host, found.port);
    const memberId = randomBytes(16).toString("base64url");
    const beat = (memberEpoch: number, extra: Record<string, unknown> = {}) =>
      conn.request(ApiKey.ConsumerGroupHeartbeat, { groupId, memberId, memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1, subscribedTopicNames: memberEpoch === 0 ? [product.topicName] : null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: memberEpoch === 0 ? [] : null, ...extra }, conn.pickVersion(ApiKey.ConsumerGroupHeartbeat, 0, 1));
    let r = await beat(0);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    let assigned = r.assignment?.topicPartitions ?? [];
    await waitFor(async () => {
      if (assigned.reduce((n, t) => n + t.partitions.length, 0) === 2) return true;
      r = await beat(r.memberEpoch);
      if (r.assignment) assigned = r.assignment.topicPartitions;
      return false;
    }, 15_000, "both partitions assigned");
    r = await beat(r.memberEpoch, { topicPartitions: assigned });
    const epoch = r.memberEpoch;
    const keepAlive = setInterval(() => void beat(epoch).catch(() => undefined), 2_000);
    try {
      // It commits with its member epoch (OffsetCommit v9), as such a consumer does.
      const commit = await conn.request(ApiKey.OffsetCommit, { groupId, generationIdOrMemberEpoch: epoch, memberId, groupInstanceId: null, topics: [{ name: product.topicName, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: "" })) }] }, 9);
      expect(commit.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);

      const [description] = await running.cluster.describeGroups([groupId]);
      expect(description).toMatchObject({ groupId, state: "Stable", members: 1, groupType: "consumer", protocolType: "consumer" });
      expect(description!.assignment.map((a) => `${a.topic}:${a.partition}:${a.clientId}`).sort()).toEqual([0, 1].map((p) => `${product.topicName}:${p}:kip848-member`));

      const row = await waitFor(async () => {
        await running.worker.observer.observeOnce();
        return db.consumerGroupObservation.findUnique({ where: { groupId_topic: { groupId, topic: product.topicName } } });
      }, 10_000, "the group's row");
      expect(row.state).toBe("Stable");
      expect(row.members).toBe(1);
      expect((row.partitionDetail as Array<{ partition: number; owner?: { memberId: string; clientId: string } }>).map((d) => ({ partition: d.partition, memberId: d.owner?.memberId, clientId: d.owner?.clientId }))).toEqual(
        [0, 1].map((partition) => ({ partition, memberId, clientId: "kip848-member" })),
      );
    } finally {
      clearInterval(keepAlive);
      await beat(-1).catch(() => undefined);
      conn.close();
    }
  });

  it("shows bytes moving to the remote tier on a tiered product: latest tiered offset, earliest local offset, remote bytes on both (Apache Kafka's from its remote log metadata topic)", async () => {
    const product = await approvedProduct(db, people, { partitions: 1, retentionMs: 7 * 24 * 3600_000, tieredStorage: true, localRetentionMs: 60_000 });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 10_000, "topic created");
    // Segments that close quickly (settings the catalog does not own, so the reconcile leaves them):
    // 2 KiB on the embedded broker; Apache Kafka's smallest segment.bytes is 1 MiB, so by time there.
    await running.cluster.setTopicConfigs(product.topicName, kind === "embedded" ? { "segment.bytes": "2048" } : { "segment.ms": "1000" });
    const producer = target.client().producer();
    await producer.connect();
    const batch = async (i: number) => producer.send({ topic: product.topicName, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ value: `record-${i}-${j}-${"x".repeat(60)}` })) });
    for (let i = 0; i < 20; i++) await batch(i);
    let sent = 200n;
    // First the broker's own copy to the remote tier, then the observation: the observer
    // refreshes a quiet topic's tier figures once per refresh round (60 s), so the topic's
    // first refresh must come after the copy for this test not to race it. A segment rolls
    // at the first append after segment.ms: keep appending until one is tiered.
    const topics = [{ topic: product.topicName, partitions: 1 }];
    await waitFor(async () => {
      const tieredOffset = (await running.cluster.listOffsets(topics, "latestTiered")).get(product.topicName)?.[0] ?? null;
      if (tieredOffset !== null && tieredOffset >= 0n) return true;
      if (kind === "apache") {
        await new Promise((r) => setTimeout(r, 1_000));
        await batch(-1);
        sent += 10n;
      }
      return false;
    }, 30_000, "the broker to copy closed segments to the remote tier");
    await producer.disconnect();
    const row = await waitFor(async () => {
      await running.worker.observer.observeOnce();
      const r = await db.topicObservation.findUnique({ where: { topic: product.topicName } });
      return r && (r.latestTieredOffset ?? -1n) >= 0n ? r : null;
    }, 15_000, "the observation to show the tiered offset");
    expect(row.endOffset).toBe(sent);
    expect(row.earliestOffset).toBe(0n);
    expect(row.latestTieredOffset!).toBeGreaterThanOrEqual(0n);
    expect(row.latestTieredOffset!).toBeLessThan(sent);
    expect(row.earliestLocalOffset).not.toBeNull();
    expect(row.localBytes).not.toBeNull();
    // Apache Kafka reports remote bytes through no protocol API (JMX only): the worker adds up the
    // finished segments its remote log metadata manager recorded in __remote_log_metadata.
    expect(row.remoteBytes).not.toBeNull();
    expect(row.remoteBytes!).toBeGreaterThan(0n);
    // Never more than was written: the records' bytes plus batch overheads, well under 200 bytes a record.
    expect(row.remoteBytes!).toBeLessThan(sent * 200n);
  });
});

describe("observation against older clusters, and its housekeeping (embedded broker)", () => {
  let broker: TestBroker;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  let running: ReturnType<typeof startWorker>;

  beforeAll(async () => {
    broker = await startTestBroker();
    database = await openTestDatabase();
    db = database.db;
    people = await seedPeople(db);
    running = startWorker(db, broker.bootstrap);
    await running.start();
  });

  afterAll(async () => {
    await running?.stop();
    await database?.dispose();
    await broker?.cleanup();
  });

  it("reports EARLIEST_LOCAL and LATEST_TIERED as unknown (not 0) against a cluster whose ListOffsets predates them", async () => {
    const old = await startTestBroker();
    const listOffsets = CORE_APIS.find((a) => a.apiKey === ApiKey.ListOffsets);
    if (!listOffsets) throw new Error("broker has no ListOffsets handler");
    // Kafka before 3.x: ListOffsets up to v7, no −4/−5.
    old.registry.replace({ ...listOffsets, advertised: { min: 0, max: 7 }, implemented: { min: 1, max: 7 } });
    const worker = startWorker(db, old.bootstrap);
    // The file's worker (on the other broker) must not take this test's tasks.
    await running.worker.runner.stop(2_000);
    try {
      const product = await approvedProduct(db, people, { partitions: 2 });
      await worker.worker.runner.drain();
      const summary = await worker.worker.observer.observeOnce();
      expect(summary.unknown).toEqual(expect.arrayContaining(["earliestLocalOffset", "latestTieredOffset"]));
      const row = await db.topicObservation.findUniqueOrThrow({ where: { topic: product.topicName } });
      expect(row.earliestLocalOffset).toBeNull();
      expect(row.latestTieredOffset).toBeNull();
      expect(row.endOffset).toBe(0n);
    } finally {
      await worker.stop();
      await old.cleanup();
      running.worker.runner.start();
    }
  });

  it("prunes history older than the window and drops rows of groups that went away", async () => {
    const old = new Date(Date.now() - 72 * 3600_000);
    await db.topicObservationSample.create({ data: { topic: "gone.topic.v1", bucket: old, endOffset: 1n, earliestOffset: 0n } });
    await db.consumerGroupObservation.create({ data: { groupId: "ghost.g", topic: "gone.topic.v1", state: "Stable", members: 1, totalLag: 5n, observedAt: old } });
    running.worker.observer["lastSweep"] = 0;
    await running.worker.observer.observeOnce();
    expect(await db.topicObservationSample.count({ where: { topic: "gone.topic.v1" } })).toBe(0);
    expect(await db.consumerGroupObservation.count({ where: { groupId: "ghost.g" } })).toBe(0);
  });
});
