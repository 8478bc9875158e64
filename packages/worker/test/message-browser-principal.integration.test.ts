// The message browser's principal on a SASL/SCRAM broker with ACLs: issued by
// the worker, sealed for the portal, reads product topics by partition, and
// can do nothing else — no produce, no consumer group, no other topic.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { decryptSecret, type Db } from "@kappa/catalog";
import { ApiKey, decodeFetchedRecords, encodeRecordBatch, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { MESSAGE_BROWSER_PRINCIPAL_NAME, READER_FULL_PASS_EVERY, ReaderState, readerBindings, reconcileMessageBrowser } from "../src/reconcile/platform-reader.ts";
import { approvedProduct, kafkaClient, openTestDatabase, SECRETS_KEY, seedPeople, startTestBroker, startWorker, testLogger, waitFor, type TestBroker } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };
let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let running: ReturnType<typeof startWorker>;
let topic = "";
let productId = "";
let people: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${ADMIN.name}`, saslUsers: [ADMIN] });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  running = startWorker(db, broker.bootstrap, {}, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
  await running.start();
  const product = await approvedProduct(db, people, { partitions: 2 });
  productId = product.id;
  topic = product.topicName;
  await waitFor(async () => (await db.provisioningTask.findMany({ where: { entityId: productId } })).every((t) => t.status === "DONE"), 15_000, "the topic");
  const producer = kafkaClient(broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } }).producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key: "a", value: "one", partition: 0 }, { key: "b", value: "two", partition: 0 }] });
  await producer.disconnect();
  await running.cluster.createTopics([{ name: "operator.private.v1", partitions: 1, configs: {} }]);
});

afterAll(async () => {
  await running?.stop();
  await database?.dispose();
  await broker?.cleanup();
});

async function asReader(): Promise<KafkaConnection> {
  const stored = await db.platformCredential.findUniqueOrThrow({ where: { name: MESSAGE_BROWSER_PRINCIPAL_NAME } });
  const password = decryptSecret(SECRETS_KEY, stored.secretCiphertext, MESSAGE_BROWSER_PRINCIPAL_NAME);
  const [host, port] = broker.bootstrap.split(":");
  return KafkaConnection.open({ host: host!, port: Number(port), clientId: "browser-test", sasl: { mechanism: "SCRAM-SHA-512", username: MESSAGE_BROWSER_PRINCIPAL_NAME, password }, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 5000 });
}

const fetchFrom = (conn: KafkaConnection, name: string) =>
  conn.request(ApiKey.Fetch, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 1, sessionId: 0, sessionEpoch: -1, topics: [{ topic: name, partitions: [{ partition: 0, fetchOffset: 0n, currentLeaderEpoch: -1, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }], forgottenTopicsData: [], rackId: "" }, 11);

describe("the message browser principal", () => {
  it("is issued once, sealed for the portal, and granted exactly READ and DESCRIBE on live product topics", async () => {
    const first = await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger);
    expect(first.issued).toBe(true);
    expect((await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger)).issued).toBe(false);
    const acls = (await running.cluster.describeAcls([`User:${MESSAGE_BROWSER_PRINCIPAL_NAME}`])).map((b) => `${b.permission} ${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`).sort();
    expect(acls).toEqual([`ALLOW DESCRIBE TOPIC:LITERAL:${topic}`, `ALLOW READ TOPIC:LITERAL:${topic}`]);
  });

  it("reads a product topic by partition, without any consumer group", async () => {
    const conn = await asReader();
    try {
      const res = await fetchFrom(conn, topic);
      const p = res.responses[0]?.partitions[0];
      expect(p?.errorCode).toBe(0);
      expect(decodeFetchedRecords(p?.records ?? null, 0n).records.map((r) => r.value?.toString())).toEqual(["one", "two"]);
      const offsets = await conn.request(ApiKey.ListOffsets, { replicaId: -1, isolationLevel: 1, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }] }, 5);
      expect(offsets.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, offset: 2n });
    } finally {
      conn.close();
    }
  });

  it("cannot write, cannot use consumer groups, and cannot read a topic that is not a product", async () => {
    const conn = await asReader();
    try {
      const produce = await conn.request(ApiKey.Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch({ baseTimestamp: BigInt(Date.now()), records: [{ value: "forged" }] }) }] }] }, 7);
      expect(produce.responses[0]?.partitionResponses[0]?.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      const join = await conn.request(ApiKey.JoinGroup, { groupId: "kappa-message-browser.anything", sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: "", groupInstanceId: null, protocolType: "consumer", protocols: [{ name: "range", metadata: Buffer.alloc(0) }] }, 5);
      expect(join.errorCode).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const commit = await conn.request(ApiKey.OffsetCommit, { groupId: "payments-app.replayed", generationIdOrMemberEpoch: -1, memberId: "", groupInstanceId: null, topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: null }] }] }, 7);
      expect(commit.topics[0]?.partitions[0]?.errorCode).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const other = await fetchFrom(conn, "operator.private.v1");
      expect(other.responses[0]?.partitions[0]?.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    } finally {
      conn.close();
    }
  });

  it("loses the ACLs of a retired product's topic", async () => {
    await db.dataProduct.update({ where: { id: productId }, data: { status: "RETIRED" } });
    const r = await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger);
    expect(r.deleted).toBe(2);
    expect(await running.cluster.describeAcls([`User:${MESSAGE_BROWSER_PRINCIPAL_NAME}`])).toEqual([]);
  });

  it("between full passes applies only what changed in the catalog: a new product's topic is granted, a retired one's revoked, the cluster not described", async () => {
    const state = new ReaderState();
    expect((await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger, state)).full).toBe(true);
    const product = await approvedProduct(db, people, { partitions: 1 });
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 15_000, "the new product live");
    const describes = vi.spyOn(running.cluster, "describeAcls");
    try {
      const added = await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger, state);
      expect(added).toMatchObject({ full: false, created: 2, deleted: 0 });
      // Nothing changed: nothing sent.
      expect(await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger, state)).toMatchObject({ full: false, created: 0, deleted: 0 });
      expect(describes).not.toHaveBeenCalled();
    } finally {
      describes.mockRestore();
    }
    const conn = await asReader();
    try {
      expect((await fetchFrom(conn, product.topicName)).responses[0]?.partitions[0]?.errorCode).toBe(0);
      await db.dataProduct.update({ where: { id: product.id }, data: { status: "RETIRED" } });
      expect(await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger, state)).toMatchObject({ full: false, created: 0, deleted: 2 });
      expect((await fetchFrom(conn, product.topicName)).responses[0]?.partitions[0]?.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    } finally {
      conn.close();
    }
    // Drift made on the cluster by hand is left to the next full pass, which undoes it.
    await running.cluster.createAcls(readerBindings(["operator.private.v1"]));
    expect((await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger, state)).deleted).toBe(0);
    state.passesSinceFull = READER_FULL_PASS_EVERY - 1;
    expect(await reconcileMessageBrowser(db, running.cluster, SECRETS_KEY, testLogger, state)).toMatchObject({ full: true, deleted: 2 });
    expect(await running.cluster.describeAcls([`User:${MESSAGE_BROWSER_PRINCIPAL_NAME}`])).toEqual([]);
  });
});
