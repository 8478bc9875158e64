import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadActor, requestSchemaInference, topicSchemaInference, type Db } from "../src/index.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  await db.clusterTopic.createMany({ data: [{ name: "legacy.scans", partitions: 2 }, { name: "__consumer_offsets", partitions: 50 }] });
});
afterAll(async () => dispose());

describe("schema inference requests (claim form)", () => {
  it("queues one worker task per topic while pending, audited; members and unknown or platform topics are refused", async () => {
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    expect(await topicSchemaInference(db, owner, "legacy.scans")).toBeNull();
    const first = await requestSchemaInference(db, ctx.as.ordersOwner, { topic: " legacy.scans " });
    expect(first).toMatchObject({ topic: "legacy.scans", status: "PENDING", inferred: false, definition: null });
    // A second click while the worker reads joins the pending request.
    await requestSchemaInference(db, ctx.as.ordersOwner, { topic: "legacy.scans" });
    const tasks = await db.provisioningTask.findMany({ where: { entityType: "ClusterTopic", entityId: "legacy.scans" } });
    expect(tasks).toEqual([expect.objectContaining({ kind: "INFER_TOPIC_SCHEMA", status: "PENDING", payload: { topic: "legacy.scans" } })]);
    expect(await db.auditEvent.count({ where: { action: "clusterTopic.schemaInferenceRequested", entityId: "legacy.scans" } })).toBe(1);

    // Once the worker finished, asking again samples anew (the next step of the topic's task sequence).
    await db.topicSchemaInference.update({ where: { topic: "legacy.scans" }, data: { status: "DONE", inferred: true, format: "JSON_SCHEMA", definition: "{}" } });
    expect(await requestSchemaInference(db, ctx.as.ordersOwner, { topic: "legacy.scans" })).toMatchObject({ status: "PENDING", definition: null });
    expect((await db.provisioningTask.findMany({ where: { entityId: "legacy.scans" }, orderBy: { step: "asc" } })).map((t) => t.step)).toEqual([1, 2]);

    await expect(requestSchemaInference(db, ctx.as.paymentsMember, { topic: "legacy.scans" })).rejects.toMatchObject({ status: 403 });
    await expect(topicSchemaInference(db, await loadActor(db, ctx.people.paymentsMember.id), "legacy.scans")).rejects.toMatchObject({ status: 403 });
    await expect(requestSchemaInference(db, ctx.as.ordersOwner, { topic: "not.seen" })).rejects.toMatchObject({ status: 404 });
    await expect(requestSchemaInference(db, ctx.as.ordersOwner, { topic: "__consumer_offsets" })).rejects.toMatchObject({ status: 400, fields: { topic: [expect.stringContaining("platform topic")] } });
    await expect(requestSchemaInference(db, ctx.as.ordersOwner, { topic: "" })).rejects.toMatchObject({ status: 400 });
  });
});
