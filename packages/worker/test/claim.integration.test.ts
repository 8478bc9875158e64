import { ConfigResourceTypes } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  claimTopic,
  createServiceAccount,
  decideClaimAcls,
  getProduct,
  loadActor,
  productDrift,
  registrySchemaId,
  requestSchemaInference,
  revokeSubscription,
  submitForReview,
  topicSchemaInference,
  type Db,
} from "@kappa/catalog";
import { kafkaClient, type openTestDatabase, type seedPeople, type startWorker, waitFor, type TestBroker, startSaslStack, stopSaslStack } from "./helpers.ts";

/*
 * "Claim as data product" against the real broker: a topic made outside the
 * catalog, with records, a config override and ACLs, becomes a product through
 * the normal review; on approval the worker adopts it without recreating it.
 */
const ADMIN = { name: "kappa-admin", password: "claim-admin-secret" };
const asAdmin = { sasl: { mechanism: "scram-sha-512" as const, username: ADMIN.name, password: ADMIN.password } };
const TOPIC = "legacy.orders-export";

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  ({ broker, database, db, people, running } = await startSaslStack(ADMIN, { clusterScanIntervalMs: 3_600_000 }));
});

afterAll(() => stopSaslStack({ running, database, broker }));

async function withAdmin<T>(work: (admin: ReturnType<ReturnType<typeof kafkaClient>["admin"]>) => Promise<T>): Promise<T> {
  const admin = kafkaClient(broker.bootstrap, asAdmin).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

const avro = JSON.stringify({ type: "record", name: "OrderExport", fields: [{ name: "orderId", type: "string" }] });

describe("claiming an unmanaged topic", () => {
  it("adopts the existing topic with its data: configs reconciled, partitions grown; each found ACL removed, adopted as a managed subscription or kept as an exception", async () => {
    // Consumer accounts of payments the review names: one whose principal already reads the topic, one that takes over another principal's access.
    const exporter = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name: `${people.payments.slug}-export` });
    const auditor = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name: `${people.payments.slug}-audit` });
    // A topic someone made by hand, with data and grants.
    const read = (principal: string) => ({ resourceType: 2, resourceName: TOPIC, resourcePatternType: 3, principal, host: "*", operation: 3, permissionType: 3 });
    await withAdmin(async (admin) => {
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, configEntries: [{ name: "retention.ms", value: "86400000" }] }] });
      await admin.createAcls({ acl: [read("User:old-report"), read("User:etl-job"), read(`User:${exporter.name}`), read("User:legacy-audit")] });
    });
    const producer = kafkaClient(broker.bootstrap, asAdmin).producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 12 }, (_, i) => ({ key: `o${i}`, value: JSON.stringify({ orderId: `o${i}` }) })) });
    await producer.disconnect();
    await running.worker.scanner.scanOnce();

    const draft = await claimTopic(db, people.as.ordersOwner, {
      topic: TOPIC,
      domainId: people.orders.id,
      name: "Orders Export",
      description: "Every exported order, claimed from the legacy export topic.",
      classification: "INTERNAL",
      tags: ["orders"],
      freshnessSeconds: 300,
      availabilityPct: 99.5,
      partitions: 3,
      retentionMs: 7 * 86_400_000,
      contactEmail: "owner@orders.test",
      schema: { format: "AVRO", definition: avro },
    });
    expect(draft).toMatchObject({ topicName: TOPIC, status: "DRAFT" });
    await expect(claimTopic(db, people.as.ordersOwner, { topic: TOPIC, domainId: people.orders.id, name: "Again", description: "A second claim of the same topic.", classification: "INTERNAL", freshnessSeconds: 60, availabilityPct: 99, partitions: 3, contactEmail: "o@x.test", schema: { format: "AVRO", definition: avro } })).rejects.toMatchObject({ status: 409 });

    await submitForReview(db, people.as.ordersOwner, draft.id);
    const page = await getProduct(db, await loadActor(db, people.as.reviewer.userId), draft.id);
    const found = (page.claim?.foundAcls ?? []) as { principal: string }[];
    expect(found.map((b) => b.principal).sort()).toEqual(["User:etl-job", `User:${exporter.name}`, "User:legacy-audit", "User:old-report"].sort());
    const decisionFor = (principal: string) =>
      principal === "User:old-report"
        ? { decision: "REMOVE" }
        : principal === "User:etl-job"
          ? { decision: "EXCEPTION", reason: "The nightly ETL job moves to a subscription next quarter." }
          : { decision: "ADOPT", serviceAccount: principal === "User:legacy-audit" ? auditor.name : exporter.name };
    await decideClaimAcls(db, people.as.reviewer, draft.id, { decisions: found.map((b, index) => ({ index, ...decisionFor(b.principal) })) });
    await approveProduct(db, people.as.reviewer, draft.id);

    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: draft.id } })).status === "ACTIVE", 30_000, "claimed product ACTIVE");
    const { offsets, configs, acls } = await withAdmin(async (admin) => ({
      offsets: await admin.fetchTopicOffsets(TOPIC),
      configs: Object.fromEntries(((await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC }], includeSynonyms: false })).resources[0]?.configEntries ?? []).map((e) => [e.configName, e.configValue])),
      acls: (await admin.describeAcls({ resourceType: 2, resourceName: TOPIC, resourcePatternType: 3, operation: 1, permissionType: 1 })).resources.flatMap((r) => r.acls.map((a) => a.principal)),
    }));
    // Not recreated: the 12 records are still there; grown to 3 partitions.
    expect(offsets).toHaveLength(3);
    expect(offsets.reduce((n, p) => n + Number(p.high), 0)).toBe(12);
    expect(offsets.every((p) => p.low === "0")).toBe(true);
    expect(configs["retention.ms"]).toBe(String(7 * 86_400_000));
    expect(acls).toContain("User:etl-job");
    expect(acls).not.toContain("User:old-report");
    expect(acls).toContain(`User:${people.orders.slug}-producer`);
    const steps = await db.provisioningTask.findMany({ where: { entityId: draft.id }, orderBy: { step: "asc" } });
    expect(steps.map((s) => `${s.kind}:${s.status}`)).toEqual(["CREATE_TOPIC:DONE", "ENSURE_SERVICE_ACCOUNT:DONE", "GRANT_PRODUCER_ACL:DONE", "REMOVE_CLAIMED_ACLS:DONE"]);

    // Adopted: each named account has an ACTIVE subscription granted by the worker; the account that already read the topic
    // keeps reading it, the other principal's access moved to the named account.
    const subs = await db.subscription.findMany({ where: { productId: draft.id }, include: { serviceAccount: { select: { name: true } } } });
    expect(subs.map((s) => s.serviceAccount.name).sort()).toEqual([exporter.name, auditor.name].sort());
    await waitFor(async () => (await db.subscription.count({ where: { productId: draft.id, status: "ACTIVE" } })) === 2, 30_000, "adopted subscriptions ACTIVE");
    const readers = async () =>
      withAdmin(async (admin) => (await admin.describeAcls({ resourceType: 2, resourceName: TOPIC, resourcePatternType: 3, operation: 1, permissionType: 1 })).resources.flatMap((r) => r.acls.map((a) => `${a.principal} ${a.operation}`)));
    const granted = await readers();
    expect(granted).toEqual(expect.arrayContaining([`User:${exporter.name} 3`, `User:${auditor.name} 3`, "User:etl-job 3"]));
    expect(granted.some((g) => g.startsWith("User:legacy-audit "))).toBe(false);
    // The next scan lists it as managed by the product; nothing on it is unexplained, and the exception is listed with its reason.
    await running.worker.scanner.scanOnce();
    expect(await db.clusterTopic.findUnique({ where: { name: TOPIC } })).toMatchObject({ productId: draft.id });
    const drift = await productDrift(db, await loadActor(db, people.as.ordersOwner.userId), draft.id);
    expect(drift.unknownGrants).toEqual([]);
    expect(drift.grantExceptions).toEqual([expect.objectContaining({ principal: "User:etl-job", reason: "The nightly ETL job moves to a subscription next quarter.", present: true })]);

    // Managed from now on: revoking the adopted subscription removes the grant the topic had before the claim.
    const exporterSub = subs.find((s) => s.serviceAccount.name === exporter.name);
    await revokeSubscription(db, people.as.ordersOwner, exporterSub?.id ?? "", { reason: "The export job is retired." });
    await waitFor(async () => !(await readers()).some((g) => g.startsWith(`User:${exporter.name} `)), 30_000, "adopted grant revoked on the broker");
    expect(await readers()).toEqual(expect.arrayContaining([`User:${auditor.name} 3`, "User:etl-job 3"]));
  });

  it("infers a schema from sample records for the claim form: JSON → JSON Schema, registry-framed Avro → that schema, binary → explained", async () => {
    const jsonTopic = "legacy.parcel-scans";
    const avroTopic = "legacy.scan-events";
    const binaryTopic = "legacy.blobs";
    await withAdmin((admin) => admin.createTopics({ topics: [jsonTopic, avroTopic, binaryTopic].map((topic) => ({ topic, numPartitions: 2 })) }));
    const scanSchema = JSON.stringify({ type: "record", name: "ScanEvent", fields: [{ name: "parcelId", type: "string" }] });
    const id = await db.$transaction((tx) => registrySchemaId(tx, "AVRO", scanSchema));
    const framed = Buffer.alloc(5 + 3);
    framed.writeUInt32BE(id, 1);
    framed.set([4, 0x70, 0x31], 5); // Avro string "p1"
    const producer = kafkaClient(broker.bootstrap, asAdmin).producer();
    await producer.connect();
    await producer.send({ topic: jsonTopic, messages: Array.from({ length: 30 }, (_, i) => ({ key: `p${i}`, value: JSON.stringify({ parcelId: `p${i}`, weightKg: i % 2 ? 1.5 : 2, ...(i % 3 ? { depot: "north" } : {}) }) })) });
    await producer.send({ topic: avroTopic, messages: [{ key: "p1", value: framed }] });
    await producer.send({ topic: binaryTopic, messages: [{ key: "b", value: Buffer.from([0xde, 0xad, 0xbe, 0xef]) }] });
    await producer.disconnect();
    await running.worker.scanner.scanOnce();

    // Sampling a topic no grant covers is a platform admin's (issue 30, finding 5; the catalog's tests cover who else may).
    const admin = await db.user.create({ data: { email: `admin@platform-${Date.now().toString(36)}.test`, name: "Platform admin", globalRole: "ADMIN" } });
    const owner = await loadActor(db, admin.id);
    const done = async (topic: string) => {
      await requestSchemaInference(db, { userId: admin.id }, { topic });
      return waitFor(async () => {
        const r = await topicSchemaInference(db, owner, topic);
        return r && r.status !== "PENDING" ? r : null;
      }, 30_000, `schema inference of ${topic}`);
    };
    const fromJson = await done(jsonTopic);
    expect(fromJson).toMatchObject({ status: "DONE", inferred: true, format: "JSON_SCHEMA", sampled: 30 });
    expect(JSON.parse(fromJson.definition ?? "{}")).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { parcelId: { type: "string" }, weightKg: { type: "number" }, depot: { type: "string" } },
      required: ["parcelId", "weightKg"],
    });
    const fromAvro = await done(avroTopic);
    expect(fromAvro).toMatchObject({ status: "DONE", inferred: true, format: "AVRO", registrySchemaId: id });
    expect(JSON.parse(fromAvro.definition ?? "{}")).toEqual(JSON.parse(scanSchema));
    expect(await done(binaryTopic)).toMatchObject({ status: "DONE", inferred: false, explanation: expect.stringContaining("cannot be read from the data") });
    // Only the result is stored, never a record; and a product's topic is not sampled this way.
    expect(JSON.stringify(await db.topicSchemaInference.findMany())).not.toContain("p29");
    await expect(requestSchemaInference(db, { userId: admin.id }, { topic: TOPIC })).rejects.toMatchObject({ code: "TOPIC_MANAGED" });
    await expect(requestSchemaInference(db, { userId: admin.id }, { topic: "__consumer_offsets" })).rejects.toMatchObject({ status: 400 });
  });
});
