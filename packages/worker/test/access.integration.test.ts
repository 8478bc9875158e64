import type { Consumer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestCredentialRotation, revealCredentialOnce, revokeSubscription, type Db } from "@kappa/catalog";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { fullReconcile } from "../src/reconcile/full.ts";
import { RETIRE_PRODUCT } from "../src/tasks/handlers.ts";
import { approvedProduct, approvedSubscription, KAFKA_TARGETS, SECRETS_KEY, connectFresh, sleep, startKafkaTarget, startTargetStack, stopSaslStack, waitFor, type KafkaTarget, type openTestDatabase, type seedPeople, type startWorker } from "./helpers.ts";

/*
 * Publish, subscribe, revoke, drift, retirement and rotation with the issued
 * credentials, on the embedded broker and on the suite's 3-node Apache Kafka
 * cluster (SCRAM-SHA-512, StandardAuthorizer, the admin the only super user).
 */
describe.each(KAFKA_TARGETS)("access with SCRAM and ACLs on %s", (kind) => {
  let target: KafkaTarget;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  let running: ReturnType<typeof startWorker>;
  // Unique on the shared cluster.
  const INTRUDER = { name: `intruder-${Math.random().toString(36).slice(2, 8)}`, password: "intruder-secret" };

  beforeAll(async () => {
    target = await startKafkaTarget(kind);
    await target.createUser(INTRUDER.name, INTRUDER.password);
    ({ database, db, people, running } = await startTargetStack(target));
  });

  afterAll(() => stopSaslStack({ running, database, broker: target }));

  const tasksDone = (entityId: string) => async () => {
    const tasks = await db.provisioningTask.findMany({ where: { entityId } });
    return tasks.length > 0 && tasks.every((t) => t.status === "DONE");
  };

  const POLL = { timeout: 20_000, interval: 100 };
  async function acls(principal: string): Promise<string[]> {
    return (await running.cluster.describeAcls([principal])).map((b) => `${b.permission} ${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`).sort();
  }

  let topic: string;
  let producerCreds: { username: string; password: string };
  let consumerCreds: { username: string; password: string };
  let subscriptionId: string;

  it("approving a product provisions topic, producer SCRAM user and WRITE grants; the owner sees the password once and can produce with it", async () => {
    const product = await approvedProduct(db, people, { partitions: 2 });
    topic = product.topicName;
    topicRef = topic;
    await waitFor(tasksDone(product.id), 10_000, "the product's provisioning");
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("ACTIVE");
    const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true }, omit: { secretHash: false, secretCiphertext: false } });
    expect(producer.secretHash).toMatch(/^scrypt\$/);
    expect(producer.secretCiphertext).toMatch(/^v1:/);
    await expect.poll(() => acls(`User:${producer.name}`), POLL).toEqual([
      "ALLOW DESCRIBE TOPIC:LITERAL:" + topic,
      "ALLOW IDEMPOTENT_WRITE CLUSTER:LITERAL:kafka-cluster",
      "ALLOW WRITE TOPIC:LITERAL:" + topic,
    ]);

    await expect(revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, producer.id)).rejects.toMatchObject({ status: 403 });
    producerCreds = await revealCredentialOnce(db, SECRETS_KEY, people.as.ordersOwner, producer.id);
    expect(producerCreds.username).toBe(producer.name);
    await expect(revealCredentialOnce(db, SECRETS_KEY, people.as.ordersOwner, producer.id)).rejects.toMatchObject({ status: 409 });
    const after = await db.serviceAccount.findUniqueOrThrow({ where: { id: producer.id }, omit: { secretCiphertext: false } });
    expect(after.secretCiphertext).toBeNull();

    // Apache Kafka's brokers learn the new credential and ACLs from the metadata log a moment after the controller commits them.
    const p = await connectFresh(() => target.clientAs(producerCreds).producer({ idempotent: true }), 10_000, "the producer's credentials on the brokers");
    await waitFor(async () => (await p.send({ topic, messages: [{ value: "first" }, { value: "second" }] })).length > 0, 10_000, "the producer's first write");
    await p.disconnect();
  });

  it("approving a subscription lets the subscriber's issued credentials consume under its group prefix, and nobody else's", async () => {
    const { account, subscription } = await approvedSubscription(db, people, (await db.dataProduct.findUniqueOrThrow({ where: { topicName: topic } })).id, `payments-recon-${Date.now().toString(36)}`);
    subscriptionId = subscription.id;
    const started = Date.now();
    await waitFor(tasksDone(subscription.id), 10_000, "the grant");
    const grantMs = Date.now() - started;
    expect(grantMs).toBeLessThan(10_000);
    expect((await db.subscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe("ACTIVE");
    await expect.poll(() => acls(`User:${account.name}`), POLL).toEqual([`ALLOW DESCRIBE TOPIC:LITERAL:${topic}`, `ALLOW READ GROUP:PREFIXED:${account.name}.`, `ALLOW READ TOPIC:LITERAL:${topic}`]);
    consumerCreds = await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, account.id);

    const values = await waitFor(() => consumeAll(target, consumerCreds, `${account.name}.reader`, 2), 10_000, "the subscriber's first read");
    expect(values.sort()).toEqual(["first", "second"]);

    // The intruder authenticates but holds no grant; the producer may write but not read.
    await expect(consumeAll(target, { username: INTRUDER.name, password: INTRUDER.password }, "intruder.g", 1, 4_000)).rejects.toThrow(REFUSED);
    await expect(consumeAll(target, producerCreds, `${producerCreds.username}.g`, 1, 4_000)).rejects.toThrow(REFUSED);
    // Right account, group outside its prefix: refused.
    await expect(consumeAll(target, consumerCreds, "someone-else.g", 1, 4_000)).rejects.toThrow(REFUSED);
    // kafkajs reports a refused FindCoordinator as "Failed to find group coordinator";
    // pin the broker's actual answers on the wire (with our own SCRAM client).
    expect(await findCoordinatorError(target, { username: INTRUDER.name, password: INTRUDER.password }, "intruder.g")).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    expect(await findCoordinatorError(target, consumerCreds, "someone-else.g")).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    expect(await findCoordinatorError(target, consumerCreds, `${account.name}.reader`)).toBe(ErrorCode.NONE);
    expect(await listOffsetsError(target, { username: INTRUDER.name, password: INTRUDER.password })).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    expect(await listOffsetsError(target, consumerCreds)).toBe(ErrorCode.NONE);
  });

  it("revoking stops the subscriber's running consumer on its next fetch", async () => {
    const account = await db.serviceAccount.findFirstOrThrow({ where: { name: consumerCreds.username } });
    const kafka = target.clientAs(consumerCreds, { retry: { retries: 0 } });
    const consumer = kafka.consumer({ groupId: `${account.name}.live`, maxWaitTimeInMs: 200, retry: { retries: 0 } });
    const received: string[] = [];
    let crashed: Error | null = null;
    consumer.on(consumer.events.CRASH, (e) => {
      crashed = e.payload.error;
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(message.value?.toString() ?? "") });
    await waitFor(() => received.length >= 2, 10_000, "the live consumer to read the first records");

    await revokeSubscription(db, people.as.ordersOwner, subscriptionId, { reason: "Contract ended." });
    await waitFor(tasksDone(subscriptionId), 10_000, "the revoke");
    await expect.poll(() => acls(`User:${account.name}`), POLL).toEqual([]);
    // The running consumer is cut on a fetch of its own, with no new record needed: the partition's leader authorizes
    // every fetch. (Apache Kafka applies an ACL change on each broker as it reads the metadata log, so a record written
    // the moment the controller committed the revocation may still be served by a leader a little behind: the record
    // below is written once the leader has refused the consumer.)
    await waitFor(() => crashed !== null, 10_000, "the consumer to be refused");
    expect(String(crashed)).toMatch(/authoriz/i);
    await consumer.disconnect();

    const p = target.clientAs(producerCreds).producer();
    await p.connect();
    await p.send({ topic, messages: [{ value: "after-revoke" }] });
    await p.disconnect();
    expect(received).not.toContain("after-revoke");
    // A new consumer with the revoked credentials reads nothing either.
    const again = target.clientAs(consumerCreds, { retry: { retries: 0 } }).consumer({ groupId: `${account.name}.again`, maxWaitTimeInMs: 200, retry: { retries: 0 } });
    let refused: Error | null = null;
    again.on(again.events.CRASH, (e) => {
      refused = e.payload.error;
    });
    const late: string[] = [];
    await again.connect();
    await again.subscribe({ topic, fromBeginning: true }).catch((error: Error) => (refused = error));
    if (!refused) await again.run({ eachMessage: async ({ message }) => void late.push(message.value?.toString() ?? "") });
    await waitFor(() => refused !== null, 10_000, "the new consumer to be refused");
    expect(String(refused)).toMatch(/authoriz/i);
    expect(late).toEqual([]);
    await again.disconnect();
  });

  it("a hand-deleted ACL is restored by the next full reconcile and recorded as drift", async () => {
    const principal = `User:${producerCreds.username}`;
    const write = (await running.cluster.describeAcls([principal])).find((b) => b.operation === "WRITE");
    if (!write) throw new Error("producer has no WRITE grant");
    await running.cluster.deleteAcls([write]);
    // Apache Kafka applies an ACL change on each broker as it reads the metadata log, and a describe goes to any
    // broker: right after a change one may still answer the old set. Hence expect.poll after every change.
    await expect.poll(() => acls(principal), POLL).not.toContain(`ALLOW WRITE TOPIC:LITERAL:${topic}`);

    const result = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    expect(result.errors).toEqual([]);
    expect(result.changes.map((c) => `${c.kind} ${String(c.detail.acl)}`)).toContain(`acl.created WRITE on TOPIC ${topic}`);
    await expect.poll(() => acls(principal), POLL).toContain(`ALLOW WRITE TOPIC:LITERAL:${topic}`);
    expect(await db.auditEvent.count({ where: { action: "drift.repaired", actorEmail: "worker" } })).toBeGreaterThanOrEqual(1);
    const again = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    expect(again.changes).toEqual([]);
  });

  it("retiring a product removes its producer's and subscribers' grants and deletes its topic (policy: delete)", async () => {
    const product = await approvedProduct(db, people, { partitions: 1 });
    await waitFor(tasksDone(product.id), 10_000, "provisioning");
    const { account, subscription } = await approvedSubscription(db, people, product.id, `retire-reader-${Date.now().toString(36)}`);
    await waitFor(tasksDone(subscription.id), 10_000, "the grant");
    const producerPrincipal = `User:${producerCreds.username}`;
    await expect.poll(() => acls(producerPrincipal), POLL).toContain(`ALLOW WRITE TOPIC:LITERAL:${product.topicName}`);
    // What the catalog's retire action will do: mark it RETIRED and queue the step.
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "RETIRED" } });
    await db.provisioningTask.create({ data: { kind: RETIRE_PRODUCT, payload: {}, entityType: "DataProduct", entityId: product.id, step: 10 } });
    await waitFor(tasksDone(product.id), 10_000, "the retirement");
    expect((await acls(producerPrincipal)).filter((a) => a.includes(product.topicName))).toEqual([]);
    await expect.poll(() => acls(`User:${account.name}`), POLL).toEqual([]);
    expect(await running.cluster.listTopics()).not.toContain(product.topicName);
    // The producer keeps its other topics.
    await expect.poll(() => acls(producerPrincipal), POLL).toContain(`ALLOW WRITE TOPIC:LITERAL:${topic}`);
  });

  it("rotation issues a new password: the old one stops working, the new one is shown once and works", async () => {
    const producer = await db.serviceAccount.findFirstOrThrow({ where: { name: producerCreds.username } });
    await expect(requestCredentialRotation(db, people.as.paymentsOwner, producer.id)).rejects.toMatchObject({ status: 403 });
    const task = await requestCredentialRotation(db, people.as.ordersOwner, producer.id);
    await waitFor(async () => (await db.provisioningTask.findUnique({ where: { id: task.id } }))?.status === "DONE", 10_000, "the rotation");
    const fresh = await revealCredentialOnce(db, SECRETS_KEY, people.as.ordersOwner, producer.id);
    expect(fresh.password).not.toBe(producerCreds.password);
    // On every broker: the old password is refused, the new one signs in.
    for (const address of target.brokers) {
      const old = producerCreds;
      await waitFor(async () => {
        try {
          (await rawAs(target, old, address)).close();
          return false;
        } catch (error) {
          return /SASL_AUTHENTICATION_FAILED/.test(String(error));
        }
      }, 10_000, `the old password to be refused by ${address}`);
      const conn = await waitFor(() => rawAs(target, fresh, address), 10_000, `the new password on ${address}`);
      conn.close();
    }
    producerCreds = fresh;
  });
});

/** Consumes `count` records from the beginning with these credentials; rejects with the client's error. */
async function consumeAll(target: KafkaTarget, creds: { username: string; password: string }, groupId: string, count: number, timeoutMs = 15_000): Promise<string[]> {
  const kafka = target.clientAs(creds, { retry: { retries: 0 } });
  const consumer: Consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200, retry: { retries: 0 } });
  const values: string[] = [];
  let failure: Error | null = null;
  consumer.on(consumer.events.CRASH, (e) => {
    failure = e.payload.error;
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: currentTopic(), fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value?.toString() ?? "") });
    const deadline = Date.now() + timeoutMs;
    while (values.length < count && !failure && Date.now() < deadline) await sleep(50);
    // Set by the consumer's callback; TypeScript cannot see that and narrows it to null.
    const failed = failure as Error | null;
    if (failed) throw failed;
    if (values.length < count) throw new Error(`read ${values.length} of ${count} records in ${timeoutMs} ms`);
    return values;
  } catch (error) {
    throw new Error(describeKafkaError(error), { cause: error });
  } finally {
    await consumer.disconnect();
  }
}

/** What kafkajs says when the broker refuses: the code's name, its text, or the coordinator lookup it wraps. */
const REFUSED = /AUTHORIZATION_FAILED|Not authorized|Failed to find group coordinator/;

async function rawAs(target: KafkaTarget, creds: { username: string; password: string }, address = target.brokers[0]!): Promise<KafkaConnection> {
  const [host, port] = address.split(":");
  return KafkaConnection.open({ host: host!, port: Number(port), clientId: "access-test", sasl: { mechanism: "SCRAM-SHA-512", ...creds }, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 5000 });
}

async function findCoordinatorError(target: KafkaTarget, creds: { username: string; password: string }, groupId: string): Promise<number> {
  const conn = await rawAs(target, creds);
  try {
    const res = await conn.request(ApiKey.FindCoordinator, { key: groupId, keyType: 0 }, conn.pickVersion(ApiKey.FindCoordinator, 1, 3));
    return res.errorCode;
  } finally {
    conn.close();
  }
}

async function listOffsetsError(target: KafkaTarget, creds: { username: string; password: string }): Promise<number> {
  // ListOffsets goes to the partition's leader (another broker answers NOT_LEADER_OR_FOLLOWER).
  const conn = await rawAs(target, creds, await leaderOfPartition0(target));
  try {
    const res = await conn.request(ApiKey.ListOffsets, { replicaId: -1, topics: [{ name: currentTopic(), partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }, 7);
    return res.topics[0]?.partitions[0]?.errorCode ?? -1;
  } finally {
    conn.close();
  }
}

async function leaderOfPartition0(target: KafkaTarget): Promise<string> {
  const admin = target.client().admin();
  await admin.connect();
  try {
    const [meta, brokers] = await Promise.all([admin.fetchTopicMetadata({ topics: [currentTopic()] }), admin.describeCluster()]);
    const leader = meta.topics[0]?.partitions.find((p) => p.partitionId === 0)?.leader;
    const broker = brokers.brokers.find((b) => b.nodeId === leader);
    if (!broker) throw new Error(`no leader for ${currentTopic()}-0`);
    return `${broker.host}:${broker.port}`;
  } finally {
    await admin.disconnect();
  }
}

/** kafkajs wraps the broker's error (e.g. GROUP_AUTHORIZATION_FAILED under "Failed to find group coordinator"): flatten the chain. */
function describeKafkaError(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    if (e instanceof Error) {
      const type = (e as Error & { type?: string }).type;
      parts.push(`${e.name}: ${e.message}${type ? ` [${type}]` : ""}`);
      e = (e as Error & { cause?: unknown; originalError?: unknown }).cause ?? (e as Error & { originalError?: unknown }).originalError;
    } else break;
  }
  return parts.join(" <- ");
}

let topicRef = "";
function currentTopic(): string {
  return topicRef;
}
