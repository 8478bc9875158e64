// ACLs end to end with kafkajs 2.2.4 over TCP: the matrix (no grants →
// refused; READ on the topic and a PREFIXED group pattern → consumes; WRITE →
// produces; DeleteAcls → an already-connected consumer fails on its next fetch;
// DENY beats ALLOW; a super user can do everything), ACL API validation, and
// ACLs surviving a restart. Every principal is a SCRAM user created at start-up
// and every client (kafkajs and raw) logs in with SCRAM-SHA-512 on the
// SASL_PLAINTEXT listener that --sasl-admin sets up.
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin, type Consumer, type Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { PrincipalClient, rand, saslAdminBroker, scramKafka, user, type User } from "./acl-helpers.ts";
import { createTopicsReady, startTestBroker, waitFor, type TestBroker } from "./helpers.ts";

const ADMIN = user("admin");
const ALICE = user("alice");
const CAROL = user("carol");

function errorType(err: unknown): string {
  if (err && typeof err === "object" && "type" in err && typeof err.type === "string") return err.type;
  if (err && typeof err === "object" && "cause" in err) return errorType(err.cause);
  return String(err);
}

describe("ACL matrix with kafkajs", () => {
  let broker: TestBroker;
  let admin: Admin;
  let adminProducer: Producer;
  const topic = rand("orders");
  const groupPrefix = rand("analytics");
  const open: Array<{ disconnect(): Promise<void> }> = [];

  const client = (u: User) => scramKafka(broker.bootstrap, u, { retry: { retries: 2, initialRetryTime: 50, maxRetryTime: 200 } });
  const aliceAcl = (operation: AclOperationTypes, resourceType: AclResourceTypes, resourceName: string, extra: { pattern?: ResourcePatternTypes; permission?: AclPermissionTypes; principal?: string } = {}) => ({
    resourceType,
    resourceName,
    resourcePatternType: extra.pattern ?? ResourcePatternTypes.LITERAL,
    principal: extra.principal ?? "User:alice",
    host: "*",
    operation,
    permissionType: extra.permission ?? AclPermissionTypes.ALLOW,
  });

  /**
   * CreateAcls, then what Kafka's clients must do before relying on a grant: wait until DescribeAcls (which reads
   * the broker's authorizer) shows it. Kafka answers once the controller committed the ACLs; its broker applies them
   * a moment later.
   */
  async function createAcls(acl: Array<ReturnType<typeof aliceAcl>>): Promise<void> {
    await admin.createAcls({ acl });
    for (const a of acl) {
      await waitFor(
        async () => (await admin.describeAcls(a)).resources.length > 0,
        10_000,
        `the ACL ${a.operation} on ${a.resourceName} for ${a.principal}`,
      );
    }
  }

  beforeAll(async () => {
    broker = await startTestBroker(saslAdminBroker(ADMIN, [ALICE]));
    admin = client(ADMIN).admin();
    await admin.connect();
    await createTopicsReady(admin, { topics: [{ topic, numPartitions: 1 }] });
    adminProducer = client(ADMIN).producer();
    await adminProducer.connect();
    await adminProducer.send({ topic, messages: [1, 2, 3].map((i) => ({ value: `m${i}` })) });
  });

  afterAll(async () => {
    for (const c of open) await c.disconnect().catch(() => undefined);
    await adminProducer?.disconnect();
    await admin?.disconnect();
    await broker?.cleanup();
  });

  /** Runs a consumer as alice and resolves with the values it reads, or rejects with the error it crashes on. */
  async function consumeAs(u: User, groupId: string, expected: number, maxWaitTimeInMs = 200): Promise<{ consumer: Consumer; values: string[]; crashed: Promise<Error> }> {
    const consumer = client(u).consumer({ groupId, maxWaitTimeInMs, retry: { retries: 0, restartOnFailure: async () => false } });
    open.push(consumer);
    const values: string[] = [];
    let crash: (e: Error) => void = () => {};
    const crashed = new Promise<Error>((resolve) => (crash = resolve));
    consumer.on(consumer.events.CRASH, (e) => crash(e.payload.error));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value?.toString() ?? "") });
    const first = await Promise.race([waitFor(() => values.length >= expected, 15000, `${expected} messages`).then(() => null), crashed]);
    // The crash error itself: callers assert on its name.
    if (first !== null) throw first;
    return { consumer, values, crashed };
  }

  it("without grants: TOPIC_AUTHORIZATION_FAILED on produce and fetch, GROUP_AUTHORIZATION_FAILED on join, topic hidden from all-topics Metadata", async () => {
    const producer = client(ALICE).producer();
    open.push(producer);
    await producer.connect();
    await expect(producer.send({ topic, messages: [{ value: "x" }] }).catch((e: unknown) => Promise.reject(new Error(errorType(e))))).rejects.toThrow("TOPIC_AUTHORIZATION_FAILED");

    const raw = await PrincipalClient.connect(broker.port, ALICE);
    try {
      const fetch = await raw.call(ApiKey.Fetch, 11, { maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }] });
      expect(fetch.responses[0]?.partitions[0]?.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      const join = await raw.call(ApiKey.JoinGroup, 5, { groupId: `${groupPrefix}-1`, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: "", protocolType: "consumer", protocols: [{ name: "range", metadata: Buffer.alloc(0) }] });
      expect(join.errorCode).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    } finally {
      raw.close();
    }

    const aliceAdmin = client(ALICE).admin();
    open.push(aliceAdmin);
    await aliceAdmin.connect();
    expect(await aliceAdmin.listTopics()).not.toContain(topic);
    expect(await admin.listTopics()).toContain(topic);
  });

  it("READ on the topic without READ on the group: the consumer cannot join", async () => {
    await createAcls([aliceAcl(AclOperationTypes.READ, AclResourceTypes.TOPIC, topic)]);
    const aliceAdmin = client(ALICE).admin();
    open.push(aliceAdmin);
    await aliceAdmin.connect();
    // READ implies DESCRIBE: the topic is now listed.
    expect(await aliceAdmin.listTopics()).toContain(topic);
    const failure = (groupId: string) => consumeAs(ALICE, groupId, 3).then(
      () => "consumed",
      (e: unknown) => (e instanceof Error && e.name !== "KafkaJSProtocolError" ? e.name : errorType(e)),
    );
    // No ACL on the group: FindCoordinator (DESCRIBE on GROUP) is refused with
    // GROUP_AUTHORIZATION_FAILED, which kafkajs 2.2.4 reports as "coordinator not found"
    // (BrokerPool.withBroker drops the broker's error) — as it would against Kafka.
    expect(await failure(`${groupPrefix}-0`)).toBe("KafkaJSGroupCoordinatorNotFound");
    // DESCRIBE on the group finds the coordinator; JoinGroup needs READ.
    await createAcls([aliceAcl(AclOperationTypes.DESCRIBE, AclResourceTypes.GROUP, `${groupPrefix}-1`)]);
    // Apache Kafka's brokers apply a new ACL a moment after the controller commits it (seen: coordinator not found once, under load).
    await expect.poll(() => failure(`${groupPrefix}-1`), { timeout: 30_000, interval: 500 }).toBe("GROUP_AUTHORIZATION_FAILED");
  });

  let revokeMs = -1;
  it("READ on the topic and on a PREFIXED group pattern: consumes; DeleteAcls makes the connected consumer fail on its next fetch", async () => {
    await createAcls([aliceAcl(AclOperationTypes.READ, AclResourceTypes.GROUP, groupPrefix, { pattern: ResourcePatternTypes.PREFIXED })]);
    const described = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal: "User:alice",
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    expect(described.resources.map((r) => `${r.resourceType}/${r.resourcePatternType}/${r.resourceName}`).sort()).toEqual(
      [
        `${AclResourceTypes.GROUP}/${ResourcePatternTypes.PREFIXED}/${groupPrefix}`,
        `${AclResourceTypes.GROUP}/${ResourcePatternTypes.LITERAL}/${groupPrefix}-1`,
        `${AclResourceTypes.TOPIC}/${ResourcePatternTypes.LITERAL}/${topic}`,
      ].sort(),
    );

    const { values, crashed } = await consumeAs(ALICE, `${groupPrefix}-2`, 3);
    expect(values.slice(0, 3)).toEqual(["m1", "m2", "m3"]);

    // Keep records flowing so the consumer is fetching, then revoke READ on the topic.
    let producing = true;
    const feeder = (async () => {
      for (let i = 0; producing; i++) {
        await adminProducer.send({ topic, messages: [{ value: `live-${i}` }] });
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await waitFor(() => values.some((v) => v.startsWith("live-")), 10000, "live records");
    const t0 = performance.now();
    const deleted = await admin.deleteAcls({
      filters: [
        {
          resourceType: AclResourceTypes.TOPIC,
          resourceName: topic,
          resourcePatternType: ResourcePatternTypes.LITERAL,
          principal: "User:alice",
          host: "*",
          operation: AclOperationTypes.READ,
          permissionType: AclPermissionTypes.ALLOW,
        },
      ],
    });
    const revokedAt = performance.now();
    expect(deleted.filterResponses[0]?.matchingAcls).toHaveLength(1);
    const err = await Promise.race([crashed, new Promise((_, reject) => setTimeout(() => reject(new Error("consumer kept fetching after the revoke")), 10000))]);
    revokeMs = performance.now() - revokedAt;
    producing = false;
    await feeder;
    expect(errorType(err)).toBe("TOPIC_AUTHORIZATION_FAILED");
    process.stdout.write(`[acl] revoke → connected consumer refused: ${revokeMs.toFixed(0)} ms after DeleteAcls answered (DeleteAcls itself took ${(revokedAt - t0).toFixed(0)} ms; consumer maxWaitTimeInMs 200, records every 20 ms)\n`);
    expect(revokeMs).toBeLessThan(5000);
  });

  it("WRITE lets it produce; a DENY overrides an ALLOW", async () => {
    await createAcls([aliceAcl(AclOperationTypes.WRITE, AclResourceTypes.TOPIC, topic)]);
    const producer = client(ALICE).producer();
    open.push(producer);
    await producer.connect();
    const [res] = await producer.send({ topic, messages: [{ value: "from-alice" }] });
    expect(res?.errorCode).toBe(0);

    // DENY WRITE for everyone on a prefix covering the topic beats alice's literal ALLOW, on her open connection.
    await createAcls([aliceAcl(AclOperationTypes.WRITE, AclResourceTypes.TOPIC, topic.slice(0, 4), { pattern: ResourcePatternTypes.PREFIXED, permission: AclPermissionTypes.DENY, principal: "User:*" })]);
    await expect(producer.send({ topic, messages: [{ value: "denied" }] }).catch((e: unknown) => Promise.reject(new Error(errorType(e))))).rejects.toThrow("TOPIC_AUTHORIZATION_FAILED");
    const raw = await PrincipalClient.connect(broker.port, ALICE);
    try {
      const md = await raw.call(ApiKey.Metadata, 8, { topics: [{ name: topic }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true });
      // WRITE is denied; DESCRIBE still comes from the WRITE ALLOW (a DENY WRITE does not deny DESCRIBE).
      const ops = md.topics[0]?.topicAuthorizedOperations ?? 0;
      expect(md.topics[0]?.errorCode).toBe(0);
      expect(ops & (1 << 4)).toBe(0);
      expect(ops & (1 << 8)).not.toBe(0);
    } finally {
      raw.close();
    }
  });

  it("a super user can do everything, DENY or not", async () => {
    await createAcls([aliceAcl(AclOperationTypes.ALL, AclResourceTypes.TOPIC, "*", { permission: AclPermissionTypes.DENY, principal: "User:admin" })]);
    const [res] = await adminProducer.send({ topic, messages: [{ value: "admin" }] });
    expect(res?.errorCode).toBe(0);
    const t2 = rand("admin-topic");
    await createTopicsReady(admin, { topics: [{ topic: t2 }] });
    await admin.createPartitions({ topicPartitions: [{ topic: t2, count: 2 }] });
    await admin.deleteTopics({ topics: [t2] });
    const { values } = await consumeAs(ADMIN, rand("any-group"), 3);
    expect(values.slice(0, 3)).toEqual(["m1", "m2", "m3"]);
  });
});

describe("ACL APIs", () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker(saslAdminBroker(ADMIN, [CAROL]));
  });
  afterAll(async () => {
    await broker?.cleanup();
  });

  const creation = (over: Record<string, unknown> = {}) => ({
    resourceType: 2,
    resourceName: "t",
    resourcePatternType: 3,
    principal: "User:alice",
    host: "*",
    operation: 3,
    permissionType: 3,
    ...over,
  });

  it("CreateAcls validates each creation as Kafka does; filters select LITERAL, PREFIXED, ANY and MATCH", async () => {
    const admin = await PrincipalClient.connect(broker.port, ADMIN);
    try {
      // What Kafka checks per creation (AclControlManager.validateNewAcl and the broker's pre-checks): INVALID_REQUEST
      // for that creation alone, the others are created.
      const created = await admin.call(ApiKey.CreateAcls, 1, {
        creations: [
          creation({ resourceName: "orders.eu" }),
          creation({ resourceName: "orders.", resourcePatternType: 4 }),
          creation({ resourceName: "*" }),
          creation({ resourceType: 4, resourceName: "my-cluster" }),
          creation({ resourceName: "" }),
          creation({ principal: "alice" }),
          creation({ resourceType: 5, resourceName: "tx-1", operation: 4 }),
          creation({ resourceType: 7, resourceName: "User:bob", operation: 13 }),
          creation({ resourceType: 6, resourceName: "token-1", operation: 8 }),
        ],
      });
      expect(created.results.map((r) => r.errorCode)).toEqual([0, 0, 0, 42, 42, 42, 0, 0, 0]);
      // A filter-only value in a creation (pattern MATCH or ANY, resource type, operation or permission ANY): Kafka
      // builds a request's bindings before it validates them, these throw there, and every creation of the request
      // is answered UNKNOWN_SERVER_ERROR without a message, nothing created.
      for (const bad of [creation({ resourcePatternType: 2 }), creation({ resourcePatternType: 1 }), creation({ resourceType: 1 }), creation({ operation: 1 }), creation({ permissionType: 1 })]) {
        const r = await admin.call(ApiKey.CreateAcls, 1, { creations: [creation({ resourceName: "never-created" }), bad] });
        expect(r.results, JSON.stringify(bad)).toEqual([
          { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null },
          { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null },
        ]);
      }
      // An element sent as UNKNOWN (0) in a creation: Kafka's request parser refuses the request by closing the
      // connection, without an answer. A code past the last known one passes the parser and is refused as UNKNOWN.
      const pastLast = await admin.call(ApiKey.CreateAcls, 1, { creations: [creation({ permissionType: 42 })] });
      expect(pastLast.results).toEqual([{ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: "Invalid permissionType UNKNOWN" }]);
      for (const bad of [creation({ resourceType: 0 }), creation({ resourcePatternType: 0 }), creation({ operation: 0 }), creation({ permissionType: 0 })]) {
        const own = await PrincipalClient.connect(broker.port, ADMIN);
        try {
          await expect(own.call(ApiKey.CreateAcls, 1, { creations: [bad] }), JSON.stringify(bad)).rejects.toThrow(/connection closed/);
        } finally {
          own.close();
        }
      }
      // Kafka's broker applies ACLs a moment after CreateAcls answers.
      await waitFor(
        async () => (await admin.call(ApiKey.DescribeAcls, 1, { resourceTypeFilter: 2, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 })).resources.length >= 3,
        10_000,
        "the created ACLs",
      );

      const describe = async (resourceNameFilter: string | null, patternTypeFilter: number) =>
        (await admin.call(ApiKey.DescribeAcls, 1, { resourceTypeFilter: 2, resourceNameFilter, patternTypeFilter, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 })).resources
          .map((r) => `${r.patternType}:${r.resourceName}`)
          .sort();
      expect(await describe("orders.eu", 2)).toEqual(["3:*", "3:orders.eu", "4:orders."]);
      expect(await describe("orders.eu", 1)).toEqual(["3:orders.eu"]);
      expect(await describe("orders.", 4)).toEqual(["4:orders."]);
      expect(await describe(null, 3)).toEqual(["3:*", "3:orders.eu"]);
      // A filter with an UNKNOWN (0) element: Kafka's request parser refuses the request by closing the connection.
      const anyFilter = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };
      for (const unknownElement of [{ patternTypeFilter: 0 }, { resourceTypeFilter: 0 }, { operation: 0 }, { permissionType: 0 }].map((o) => ({ ...anyFilter, ...o }))) {
        for (const call of [(c: PrincipalClient) => c.call(ApiKey.DescribeAcls, 1, unknownElement), (c: PrincipalClient) => c.call(ApiKey.DeleteAcls, 1, { filters: [anyFilter, unknownElement] })]) {
          const own = await PrincipalClient.connect(broker.port, ADMIN);
          try {
            await expect(call(own), JSON.stringify(unknownElement)).rejects.toThrow(/connection closed/);
          } finally {
            own.close();
          }
        }
      }

      const deleted = await admin.call(ApiKey.DeleteAcls, 1, {
        filters: [{ resourceTypeFilter: 2, resourceNameFilter: "orders.eu", patternTypeFilter: 2, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }],
      });
      expect(deleted.filterResults[0]?.matchingAcls.map((a) => `${a.patternType}:${a.resourceName}`).sort()).toEqual(["3:*", "3:orders.eu", "4:orders."]);
      // Kafka's broker drops the ACLs a moment after DeleteAcls answers.
      await waitFor(async () => (await describe(null, 1)).length === 0, 10_000, "the deleted ACLs to go");
      expect(await describe(null, 1)).toEqual([]);
    } finally {
      admin.close();
    }
  });

  it("ACLs are durable: they survive a restart and are enforced after it", async () => {
    const dir = broker.dataDir;
    const admin = await PrincipalClient.connect(broker.port, ADMIN);
    const created = await admin.call(ApiKey.CreateAcls, 1, { creations: [creation({ principal: "User:carol", resourceName: "kept", operation: 8 })] });
    expect(created.results[0]?.errorCode).toBe(0);
    admin.close();
    await broker.stop();
    broker = await startTestBroker(saslAdminBroker(ADMIN, [CAROL]), dir);
    const admin2 = await PrincipalClient.connect(broker.port, ADMIN);
    const carol = await PrincipalClient.connect(broker.port, CAROL);
    try {
      const described = await admin2.call(ApiKey.DescribeAcls, 1, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: "User:carol", hostFilter: null, operation: 1, permissionType: 1 });
      expect(described.resources.map((r) => r.resourceName)).toEqual(["kept"]);
      const md = await carol.call(ApiKey.Metadata, 8, { topics: [{ name: "kept" }, { name: "other" }], allowAutoTopicCreation: false });
      // carol may DESCRIBE "kept" (which does not exist), not "other".
      expect(md.topics.map((t) => t.errorCode)).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.TOPIC_AUTHORIZATION_FAILED]);
    } finally {
      admin2.close();
      carol.close();
    }
  });

  it("without an authorizer the ACL APIs answer SECURITY_DISABLED and everything is allowed", async () => {
    // A SASL listener without an authorizer: authenticated, and nothing is checked.
    const nobody = user("nobody");
    const plain = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", saslUsers: [nobody] });
    try {
      const c = await PrincipalClient.connect(plain.port, nobody);
      const created = await c.call(ApiKey.CreateAcls, 1, { creations: [creation()] });
      expect(created.results[0]?.errorCode).toBe(ErrorCode.SECURITY_DISABLED);
      const described = await c.call(ApiKey.DescribeAcls, 1, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 });
      expect(described.errorCode).toBe(ErrorCode.SECURITY_DISABLED);
      const deleted = await c.call(ApiKey.DeleteAcls, 1, { filters: [{ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }] });
      expect(deleted.filterResults[0]?.errorCode).toBe(ErrorCode.SECURITY_DISABLED);
      const logDirs = await c.call(ApiKey.DescribeLogDirs, 4, { topics: null });
      expect(logDirs.errorCode).toBe(0);
      c.close();
    } finally {
      await plain.cleanup();
    }
  });
});
