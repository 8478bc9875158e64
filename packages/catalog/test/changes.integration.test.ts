import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, approveProduct, defaultPolicySource, getProduct, loadActor, registerProduct, rejectChangeRequest, requestPartitionIncrease, reviewQueue, submitForReview, updatePolicy, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

async function activeProduct(name: string) {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, partitions: 3 }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  // The worker would finish the plan and activate it.
  await db.provisioningTask.updateMany({ where: { entityId: p.id }, data: { status: "DONE" } });
  return db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
}

describe("adding partitions", () => {
  it("is requested by an owner, reviewed by governance (four eyes), and queues a topic step that grows the topic", async () => {
    const product = await activeProduct("Grow Me");
    await expect(requestPartitionIncrease(db, ctx.as.paymentsOwner, product.id, { partitions: 6, reason: "more consumers" })).rejects.toMatchObject({ status: 403 });
    await expect(requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 3, reason: "no change" })).rejects.toMatchObject({ status: 400, fields: { partitions: [expect.stringContaining("3 partitions")] } });
    await expect(requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 999, reason: "way too many" })).rejects.toMatchObject({ status: 400 });

    const request = await requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 6, reason: "Peak season throughput" });
    await expect(requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 8, reason: "another one" })).rejects.toMatchObject({ code: "CHANGE_PENDING" });
    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.changes).toEqual([expect.objectContaining({ id: request.id, kind: "ADD_PARTITIONS", payload: { from: 3, to: 6 }, reason: "Peak season throughput" })]);
    // The product stays ACTIVE with 3 partitions until approval.
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).partitions).toBe(3);

    await expect(approveChangeRequest(db, ctx.as.ordersOwner, request.id)).rejects.toMatchObject({ status: 403 });
    await approveChangeRequest(db, ctx.as.reviewer, request.id);
    await expect(approveChangeRequest(db, ctx.as.reviewer2, request.id)).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
    const after = await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } });
    expect(after).toMatchObject({ partitions: 6, status: "ACTIVE" });
    const tasks = await db.provisioningTask.findMany({ where: { entityId: product.id }, orderBy: { step: "asc" } });
    expect(tasks.at(-1)).toMatchObject({ kind: "CREATE_TOPIC", step: 4, status: "PENDING", payload: expect.objectContaining({ partitions: 6 }) });
    const page = await getProduct(db, await loadActor(db, ctx.people.ordersOwner.id), product.id);
    expect(page.provisioning.at(-1)?.label).toBe("Grow topic to 6 partitions and reconcile its configs");
    expect(page.changeRequests[0]).toMatchObject({ status: "APPROVED" });
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "product.changeApproved" } })).toMatchObject({ data: { from: 3, to: 6, kind: "ADD_PARTITIONS" } });
  });

  it("cannot be approved by the requester, and a rejection changes nothing", async () => {
    const product = await activeProduct("Keep Me");
    // A governance member who also owns the domain may request but not approve their own request.
    await db.membership.create({ data: { userId: ctx.people.reviewer.id, domainId: ctx.orders.id, role: "OWNER" } });
    const request = await requestPartitionIncrease(db, ctx.as.reviewer, product.id, { partitions: 4, reason: "one more please" });
    await expect(approveChangeRequest(db, ctx.as.reviewer, request.id)).rejects.toMatchObject({ status: 403, message: expect.stringContaining("Four-eyes") });
    await rejectChangeRequest(db, ctx.as.reviewer2, request.id, { reason: "Not needed at current load" });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).partitions).toBe(3);
    expect(await db.provisioningTask.count({ where: { entityId: product.id } })).toBe(3);
    await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.reviewer.id, domainId: ctx.orders.id } } });
  });

  it("runs the policy's partition bounds, when requested and again when approved", async () => {
    const product = await activeProduct("Bounded Growth");
    // The default policy allows INTERNAL products 1–64 partitions (the catalog's own limit is 256).
    await expect(requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 80, reason: "far too many" })).rejects.toMatchObject({
      status: 422,
      code: "POLICY_VIOLATION",
      details: { policy: { rules: ["topic.partitions"] } },
    });
    const request = await requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 8, reason: "Peak season throughput" });
    const requested = await db.auditEvent.findFirstOrThrow({ where: { entityId: product.id, action: "product.partitionIncreaseRequested" } });
    expect(requested.data).toMatchObject({ to: 8, policy: { failed: [] } });
    // The policy tightens while the request waits: the approval is refused and nothing changes.
    const stricter = defaultPolicySource().replace("default: { min: 1, max: 64 }", "default: { min: 1, max: 6 }");
    await updatePolicy(db, ctx.as.admin, { source: stricter, reason: "Smaller cluster for a while" });
    try {
      await expect(approveChangeRequest(db, ctx.as.reviewer, request.id)).rejects.toMatchObject({ code: "POLICY_VIOLATION", details: { policy: { rules: ["topic.partitions"] } } });
      expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).partitions).toBe(3);
      expect((await db.productChangeRequest.findUniqueOrThrow({ where: { id: request.id } })).status).toBe("REQUESTED");
    } finally {
      await updatePolicy(db, ctx.as.admin, { source: defaultPolicySource(), reason: "Back to the default" });
    }
    await approveChangeRequest(db, ctx.as.reviewer, request.id);
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).partitions).toBe(8);
  });

  it("is only for ACTIVE products", async () => {
    const draft = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Draft One" }));
    await expect(requestPartitionIncrease(db, ctx.as.ordersOwner, draft.id, { partitions: 12, reason: "not yet live" })).rejects.toMatchObject({ code: "PRODUCT_NOT_ACTIVE" });
  });
});
