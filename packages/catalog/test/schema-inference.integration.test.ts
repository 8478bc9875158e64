import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveClaimSampling, claimTopic, loadActor, requestSchemaInference, topicSchemaInference, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  await db.clusterTopic.createMany({ data: [{ name: "legacy.scans", partitions: 2 }, { name: "legacy.emails", partitions: 1 }, { name: "__consumer_offsets", partitions: 50 }] });
});
afterAll(async () => dispose());

describe("schema inference requests (claim form)", () => {
  it("queues one worker task per topic while pending, audited; members and unknown or platform topics are refused", async () => {
    const admin = await loadActor(db, ctx.people.admin.id);
    expect(await topicSchemaInference(db, admin, "legacy.scans")).toBeNull();
    const first = await requestSchemaInference(db, ctx.as.admin, { topic: " legacy.scans " });
    expect(first).toMatchObject({ topic: "legacy.scans", status: "PENDING", inferred: false, definition: null });
    // A second click while the worker reads joins the pending request.
    await requestSchemaInference(db, ctx.as.admin, { topic: "legacy.scans" });
    const tasks = await db.provisioningTask.findMany({ where: { entityType: "ClusterTopic", entityId: "legacy.scans" } });
    expect(tasks).toEqual([expect.objectContaining({ kind: "INFER_TOPIC_SCHEMA", status: "PENDING", payload: { topic: "legacy.scans" } })]);
    expect(await db.auditEvent.count({ where: { action: "clusterTopic.schemaInferenceRequested", entityId: "legacy.scans" } })).toBe(1);

    // Once the worker finished, asking again samples anew (the next step of the topic's task sequence).
    await db.topicSchemaInference.update({ where: { topic: "legacy.scans" }, data: { status: "DONE", inferred: true, format: "JSON_SCHEMA", definition: "{}" } });
    expect(await requestSchemaInference(db, ctx.as.admin, { topic: "legacy.scans" })).toMatchObject({ status: "PENDING", definition: null });
    expect((await db.provisioningTask.findMany({ where: { entityId: "legacy.scans" }, orderBy: { step: "asc" } })).map((t) => t.step)).toEqual([1, 2]);

    await expect(requestSchemaInference(db, ctx.as.paymentsMember, { topic: "legacy.scans" })).rejects.toMatchObject({ status: 403 });
    await expect(topicSchemaInference(db, await loadActor(db, ctx.people.paymentsMember.id), "legacy.scans")).rejects.toMatchObject({ status: 403 });
    await expect(requestSchemaInference(db, ctx.as.admin, { topic: "not.seen" })).rejects.toMatchObject({ status: 404 });
    await expect(requestSchemaInference(db, ctx.as.admin, { topic: "__consumer_offsets" })).rejects.toMatchObject({ status: 400, fields: { topic: [expect.stringContaining("platform topic")] } });
    await expect(requestSchemaInference(db, ctx.as.admin, { topic: "" })).rejects.toMatchObject({ status: 400 });
  });

  it("a domain owner may not sample a topic (issue 30, finding 5): only admins, or the owners of a claim an admin approved for sampling", async () => {
    const topic = "legacy.emails";
    const ordersOwner = await loadActor(db, ctx.people.ordersOwner.id);
    const refused = { status: 403, message: expect.stringContaining("Only platform admins infer a topic's schema") };
    // Any owner used to be able to read any unmanaged topic this way (its keys came back as field names).
    await expect(requestSchemaInference(db, ctx.as.ordersOwner, { topic })).rejects.toMatchObject(refused);
    await expect(requestSchemaInference(db, ctx.as.reviewer, { topic })).rejects.toMatchObject({ status: 403 });
    // Nor read what an admin's request inferred.
    await requestSchemaInference(db, ctx.as.admin, { topic });
    await expect(topicSchemaInference(db, ordersOwner, topic)).rejects.toMatchObject(refused);

    // Claiming the topic alone does not open it: an admin approves sampling for the claim.
    const claimed = await claimTopic(db, ctx.as.ordersOwner, { ...productInput(ctx.orders.id, { name: "Legacy Emails", partitions: 1 }), topic });
    await expect(requestSchemaInference(db, ctx.as.ordersOwner, { topic })).rejects.toMatchObject(refused);
    await expect(approveClaimSampling(db, ctx.as.ordersOwner, { topic })).rejects.toMatchObject({ status: 403 });
    await expect(approveClaimSampling(db, ctx.as.reviewer, { topic })).rejects.toMatchObject({ status: 403 });
    await expect(approveClaimSampling(db, ctx.as.admin, { topic: "legacy.scans" })).rejects.toMatchObject({ status: 404 });
    expect(await approveClaimSampling(db, ctx.as.admin, { topic })).toMatchObject({ productId: claimed.id, topic });
    expect(await db.auditEvent.count({ where: { action: "clusterTopic.samplingApproved", entityId: topic } })).toBe(1);

    // The claimant's owners now may (their draft takes the inferred schema); another domain's owner still may not.
    await db.topicSchemaInference.update({ where: { topic }, data: { status: "DONE" } });
    expect(await requestSchemaInference(db, ctx.as.ordersOwner, { topic })).toMatchObject({ topic, status: "PENDING" });
    expect(await topicSchemaInference(db, ordersOwner, topic)).toMatchObject({ topic, status: "PENDING" });
    await expect(requestSchemaInference(db, ctx.as.paymentsOwner, { topic })).rejects.toMatchObject(refused);
    await expect(topicSchemaInference(db, await loadActor(db, ctx.people.paymentsOwner.id), topic)).rejects.toMatchObject(refused);

    // Once the claim is approved the schema is the product's: the approval ends.
    await db.dataProduct.update({ where: { id: claimed.id }, data: { status: "APPROVED" } });
    await expect(requestSchemaInference(db, ctx.as.ordersOwner, { topic })).rejects.toMatchObject(refused);
    await expect(approveClaimSampling(db, ctx.as.admin, { topic })).rejects.toMatchObject({ status: 409 });
  });
});
