import { ConfigResourceTypes } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveProduct, claimTopic, decideClaimAcls, getProduct, loadActor, registrySchemaId, requestSchemaInference, submitForReview, topicSchemaInference, type Db } from "@kappa/catalog";
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
  it("adopts the existing topic with its data: configs reconciled, partitions grown, chosen ACLs removed, others kept", async () => {
    // A topic someone made by hand, with data and grants.
    await withAdmin(async (admin) => {
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, configEntries: [{ name: "retention.ms", value: "86400000" }] }] });
      await admin.createAcls({
        acl: [
          { resourceType: 2, resourceName: TOPIC, resourcePatternType: 3, principal: "User:old-report", host: "*", operation: 3, permissionType: 3 },
          { resourceType: 2, resourceName: TOPIC, resourcePatternType: 3, principal: "User:etl-job", host: "*", operation: 3, permissionType: 3 },
        ],
      });
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
    expect(found.map((b) => b.principal).sort()).toEqual(["User:etl-job", "User:old-report"]);
    await decideClaimAcls(db, people.as.reviewer, draft.id, { remove: [found.findIndex((b) => b.principal === "User:old-report")] });
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
    // The next scan lists it as managed by the product.
    await running.worker.scanner.scanOnce();
    expect(await db.clusterTopic.findUnique({ where: { name: TOPIC } })).toMatchObject({ productId: draft.id });
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

    const owner = await loadActor(db, people.as.ordersOwner.userId);
    const done = async (topic: string) => {
      await requestSchemaInference(db, people.as.ordersOwner, { topic });
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
    await expect(requestSchemaInference(db, people.as.ordersOwner, { topic: TOPIC })).rejects.toMatchObject({ code: "TOPIC_MANAGED" });
    await expect(requestSchemaInference(db, people.as.ordersOwner, { topic: "__consumer_offsets" })).rejects.toMatchObject({ status: 400 });
  });
});
