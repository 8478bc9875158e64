// Derived products' job life cycle (issue 34): pause, resume and replay as
// owners' intents — who may ask (owners of the product's domain, tokens with
// their write scope; not members, not other domains, not read-only tokens),
// in which state of the job, the replay point checked, four eyes for a
// CONFIDENTIAL product's replay, audit, and what GET /products/{id}/job shows.
// The worker's part (Flink) is tested in packages/worker's derived-products suite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, loadActor, pauseDerivedJob, productJob, rejectChangeRequest, replayDerivedJob, resumeDerivedJob, reviewQueue, type Db } from "../src/index.ts";
import { openTestDatabase, seedPeople, activeProduct as activeProductOf } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let input: { id: string; topicName: string };

const DAY = 86_400_000;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  input = await activeProduct(ctx.orders.id, ctx.as.ordersOwner, "Order Events", { retentionMs: 7 * DAY });
});
afterAll(async () => dispose());

/** fixtures.ts's activeProduct with this file's database and reviewer. */
const activeProduct = (domainId: string, owner: { userId: string }, name: string, overrides: Record<string, unknown> = {}) => activeProductOf(db, ctx.as.reviewer, domainId, owner, name, overrides);

/** A derived product of the payments domain over the orders input, its job deployed as the worker would (planning it needs Flink: not here). */
async function derivedProduct(name: string, classification = "INTERNAL") {
  const product = await activeProduct(ctx.payments.id, ctx.as.paymentsOwner, name, { classification });
  await db.productInput.create({ data: { productId: product.id, inputProductId: input.id } });
  await db.derivedProduct.create({ data: { productId: product.id, statement: `SELECT * FROM \`${input.topicName}\``, jobId: "a".repeat(32), jobState: "RUNNING" } });
  return product;
}

const job = async (productId: string) => productJob(db, await loadActor(db, ctx.people.paymentsOwner.id), productId);

describe("pausing, resuming and replaying a derived product's job", () => {
  it("lets only owners of the product's domain (and their write-scoped tokens) pause it, once, and shows the intent on the job", async () => {
    const product = await derivedProduct("Revenue Paused");
    // Not a member of the domain, a member who is no owner, governance, a read-only token of the owner: 403.
    for (const acting of [ctx.as.ordersOwner, ctx.as.paymentsMember, ctx.as.reviewer, { userId: ctx.people.paymentsOwner.id, token: { id: "t1", name: "ci", scopes: ["read"] } }]) {
      await expect(pauseDerivedJob(db, acting, product.id)).rejects.toMatchObject({ status: 403, message: "Only owners of the product's domain may pause its Flink job." });
    }
    await expect(pauseDerivedJob(db, ctx.as.paymentsOwner, "no-such-product")).rejects.toMatchObject({ status: 404 });
    // A product that is not derived has no job to pause.
    await expect(pauseDerivedJob(db, ctx.as.ordersOwner, input.id)).rejects.toMatchObject({ status: 404 });

    const token = { userId: ctx.people.paymentsOwner.id, token: { id: "t2", name: "ops", scopes: ["read", "write:payments"] } };
    const { command } = await pauseDerivedJob(db, token, product.id);
    expect(command).toMatchObject({ kind: "PAUSE", status: "PENDING", progress: "Waiting for the worker.", from: null });
    // One intent at a time.
    await expect(pauseDerivedJob(db, ctx.as.paymentsOwner, product.id)).rejects.toMatchObject({ status: 409, code: "JOB_COMMAND_OPEN" });
    await expect(replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from: "earliest" })).rejects.toMatchObject({ status: 409, code: "JOB_COMMAND_OPEN" });
    expect((await job(product.id)).command).toMatchObject({ id: command.id, kind: "PAUSE", status: "PENDING" });
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "derivedProduct.pauseRequested" } })).toMatchObject({ actorId: ctx.people.paymentsOwner.id, data: { commandId: command.id, jobId: "a".repeat(32) } });
  });

  it("resumes only a paused job, and pauses only a running one", async () => {
    const product = await derivedProduct("Revenue Resumed");
    await expect(resumeDerivedJob(db, ctx.as.paymentsOwner, product.id)).rejects.toMatchObject({ status: 409, code: "JOB_NOT_PAUSED", message: "The job is running: there is nothing to resume." });
    // As the worker leaves it once paused.
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobState: "PAUSED", jobPausedAt: new Date(), jobSavepointPath: "file:///tmp/savepoints/savepoint-aaaaaa-1" } });
    await expect(pauseDerivedJob(db, ctx.as.paymentsOwner, product.id)).rejects.toMatchObject({ status: 409, code: "JOB_NOT_RUNNING", message: "The job is paused already." });
    const { command } = await resumeDerivedJob(db, ctx.as.paymentsOwner, product.id);
    expect(command).toMatchObject({ kind: "RESUME", status: "PENDING" });
    expect(await job(product.id)).toMatchObject({ state: "PAUSED", savepointPath: "file:///tmp/savepoints/savepoint-aaaaaa-1", command: { kind: "RESUME" } });

    // A job the worker stopped for good (its input's grant ended) is neither paused nor resumed nor replayed.
    const stopped = await derivedProduct("Revenue Stopped");
    await db.derivedProduct.update({ where: { productId: stopped.id }, data: { jobState: "STOPPED", jobStoppedAt: new Date(), jobStopReason: "The subscription was revoked." } });
    // One at a time: a refusal not yet awaited would be an unhandled rejection.
    for (const ask of [() => pauseDerivedJob(db, ctx.as.paymentsOwner, stopped.id), () => resumeDerivedJob(db, ctx.as.paymentsOwner, stopped.id), () => replayDerivedJob(db, ctx.as.paymentsOwner, stopped.id, { from: "earliest" })]) {
      await expect(ask()).rejects.toMatchObject({ status: 409, message: "The job was stopped: The subscription was revoked." });
    }
  });

  it("replays from the earliest offset or a past instant the inputs still retain; refuses anything else with a message naming the field", async () => {
    const product = await derivedProduct("Revenue Replayed");
    const malformed = 'from must be "earliest" or an ISO-8601 date and time with its zone, e.g. 2026-12-01T00:00:00Z';
    for (const body of [{ from: "yesterday" }, { from: "2026-12-01T00:00:00" }, {}, { from: 1764547200000 }]) {
      await expect(replayDerivedJob(db, ctx.as.paymentsOwner, product.id, body)).rejects.toMatchObject({ status: 400, fields: { from: [malformed] } });
    }
    await expect(replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from: "earliest", mode: "latest" })).rejects.toMatchObject({ status: 400 });
    const beyond = [
      [new Date(Date.now() + 3_600_000).toISOString(), "is in the future", "must not be in the future"],
      [new Date(Date.now() - 8 * DAY).toISOString(), `is before what the input ${input.topicName} retains (7 days`, "must not be before"],
    ] as const;
    for (const [from, message, field] of beyond) {
      await expect(replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from })).rejects.toMatchObject({ status: 400, message: expect.stringContaining(message), fields: { from: [expect.stringContaining(field)] } });
    }
    await expect(replayDerivedJob(db, ctx.as.paymentsMember, product.id, { from: "earliest" })).rejects.toMatchObject({ status: 403 });
    const from = new Date(Date.now() - 2 * DAY).toISOString();
    const { command, changeRequest } = await replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from });
    expect(changeRequest).toBeNull();
    expect(command).toMatchObject({ kind: "REPLAY", from, status: "PENDING" });
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "derivedProduct.replayRequested" } })).toMatchObject({ data: { from, commandId: command!.id } });
  });

  it("has a CONFIDENTIAL product's replay approved by a governance reviewer other than the requester (four eyes) before the worker gets it", async () => {
    const product = await derivedProduct("Revenue Confidential", "CONFIDENTIAL");
    await expect(replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from: "earliest" })).rejects.toMatchObject({ status: 400, fields: { reason: ["required for a reviewed replay"] } });
    const { command, changeRequest } = await replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from: "earliest", reason: "The fee rule was wrong since Monday." });
    expect(command).toBeNull();
    expect(changeRequest).toMatchObject({ status: "REQUESTED" });
    // Nothing for the worker yet; the job panel says a replay waits for review; governance sees it in its queue.
    expect(await db.derivedJobCommand.count({ where: { productId: product.id } })).toBe(0);
    expect(await job(product.id)).toMatchObject({ command: null, replayAwaitingReview: { changeRequestId: changeRequest!.id, from: "earliest" } });
    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.changes).toContainEqual(expect.objectContaining({ id: changeRequest!.id, kind: "DERIVED_REPLAY", payload: { from: "earliest", jobId: "a".repeat(32) }, reason: "The fee rule was wrong since Monday." }));
    await expect(replayDerivedJob(db, ctx.as.paymentsOwner, product.id, { from: "earliest", reason: "again" })).rejects.toMatchObject({ status: 409, code: "CHANGE_PENDING" });

    // The owner cannot approve it; a reviewer who requested it cannot either.
    await expect(approveChangeRequest(db, ctx.as.paymentsOwner, changeRequest!.id)).rejects.toMatchObject({ status: 403 });
    await approveChangeRequest(db, ctx.as.reviewer, changeRequest!.id);
    const queued = await db.derivedJobCommand.findFirstOrThrow({ where: { productId: product.id } });
    expect(queued).toMatchObject({ kind: "REPLAY", replayFrom: "earliest", status: "PENDING", changeRequestId: changeRequest!.id, requestedById: ctx.people.paymentsOwner.id });
    expect(await job(product.id)).toMatchObject({ command: { id: queued.id, kind: "REPLAY", status: "PENDING" }, replayAwaitingReview: null });
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "product.changeApproved" } })).toMatchObject({ actorId: ctx.people.reviewer.id, data: { kind: "DERIVED_REPLAY", from: "earliest", commandId: queued.id } });

    // A reviewer who is also an owner requests one: they may not approve it themselves; a rejection queues nothing.
    await db.derivedJobCommand.update({ where: { id: queued.id }, data: { status: "DONE" } });
    await db.membership.create({ data: { userId: ctx.people.reviewer.id, domainId: ctx.payments.id, role: "OWNER" } });
    try {
      const second = await replayDerivedJob(db, ctx.as.reviewer, product.id, { from: "earliest", reason: "once more" });
      await expect(approveChangeRequest(db, ctx.as.reviewer, second.changeRequest!.id)).rejects.toMatchObject({ status: 403, message: expect.stringContaining("Four-eyes") });
      await rejectChangeRequest(db, ctx.as.reviewer2, second.changeRequest!.id, { reason: "Not during the audit." });
      expect(await db.derivedJobCommand.count({ where: { productId: product.id } })).toBe(1);
    } finally {
      await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.reviewer.id, domainId: ctx.payments.id } } });
    }
  });
});
