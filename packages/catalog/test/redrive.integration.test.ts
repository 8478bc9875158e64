import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  authenticateApiToken,
  createApiToken,
  decideRedrive,
  listRedrives,
  loadActor,
  previewRedrive,
  registerProduct,
  requestRedrive,
  reviewQueue,
  submitForReview,
  type Db,
} from "../src/index.ts";
import type { RecordSource, SourceRecord } from "../src/records/source.ts";
import { openTestDatabase, productInput, recordsSource, seedPeople } from "./fixtures.ts";

/*
 * Issue 29, redrive: the owners of a product's domain select dead letters and
 * send them back to the product topic — previewed, four eyes when the product
 * is CONFIDENTIAL or above, audited, each dead letter at most once. The
 * dead-letter topic is an in-memory source here (the worker's test drives the
 * real broker).
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let secondOwner: { userId: string };
let confidential = "";
let internal = "";
const DLQ: SourceRecord[] = [];

const schema = JSON.stringify({ type: "record", name: "OrderPlaced", fields: [{ name: "orderId", type: "string" }, { name: "customerId", type: "string", pii: true }, { name: "totalCents", type: "long" }] });
const dead = (offset: number, rule: string, totalCents: number): SourceRecord => ({
  partition: 0,
  offset: BigInt(offset),
  timestamp: BigInt(Date.parse("2026-12-05T10:00:00Z") + offset * 1000),
  timestampType: "CreateTime",
  key: Buffer.from(`o-${offset}`),
  value: Buffer.from(JSON.stringify({ orderId: `o-${offset}`, customerId: `c-${offset}`, totalCents })),
  headers: [{ key: "__rule.name", value: Buffer.from(rule) }],
});
const source = recordsSource(DLQ);
const options = { ratePerMinute: 1_000 };

async function activeProduct(name: string, classification: string) {
  // An INTERNAL product may not carry a PII field (policy pii.classification).
  const definition = classification === "INTERNAL" ? schema.replace(', "pii": true', "").replace(',"pii":true', "") : schema;
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, classification, schema: { format: "AVRO", definition } }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  // The rule whose failures the dead-letter topic holds (set through review elsewhere: quality-rules.integration.test.ts).
  await db.dataQualityRule.create({ data: { productId: p.id, position: 0, name: "non-negative-total", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "DLQ" } });
  return p.id;
}

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  const second = await db.user.create({ data: { email: "second@orders.test", name: "second" } });
  await db.membership.create({ data: { userId: second.id, domainId: ctx.orders.id, role: "OWNER" } });
  secondOwner = { userId: second.id };
  confidential = await activeProduct("Order Totals", "CONFIDENTIAL");
  internal = await activeProduct("Order Notes", "INTERNAL");
  DLQ.push(dead(0, "non-negative-total", -1), dead(1, "non-negative-total", -2), dead(2, "known-currency", 5), dead(3, "non-negative-total", -3));
});
afterAll(async () => dispose());

const fieldsOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return { code: (error as { code?: string }).code, fields: Object.keys((error as { fields?: Record<string, string[]> }).fields ?? {}).sort() };
  }
  throw new Error("expected a refusal");
};

describe("redrive of dead letters", () => {
  it("refuses bad selections with the field that is wrong, and changes nothing", async () => {
    const ask = (selection: unknown) => fieldsOf(previewRedrive(db, ctx.as.ordersOwner, internal, { selection }, source, options));
    expect(await ask({ kind: "records", records: [{ partition: 0, offset: -1 }] })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.records.0.offset"] });
    expect(await ask({ kind: "records", records: [{ partition: 0.5, offset: 1 }] })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.records.0.partition"] });
    expect(await ask({ kind: "records", records: [] })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.records"] });
    expect(await ask({ kind: "records", records: Array.from({ length: 10_001 }, (_, i) => ({ partition: 0, offset: i })) })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.records"] });
    expect(await ask({ kind: "filter" })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.rule"] });
    expect(await ask({ kind: "filter", fromOffset: 3, toOffset: 1 })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.fromOffset"] });
    expect(await ask({ kind: "filter", fromTime: "yesterday" })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.fromTime"] });
    expect(await ask({ kind: "everything" })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.kind"] });
    expect(await ask({ kind: "all", extra: 1 })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection"] });
    // Records the dead-letter topic does not hold: a partition it lacks, an offset past its end.
    expect(await ask({ kind: "records", records: [{ partition: 3, offset: 0 }, { partition: 0, offset: 9 }] })).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.records.0.partition", "selection.records.1.offset"] });
    // Offsets far apart cost one read each: past 500 reads the selection is refused (a filter with a range is the tool).
    const sparse: RecordSource = { ...source, bounds: async () => [{ partition: 0, earliest: 0n, end: 1_000_000n }], read: async (_t, _p, from) => ({ records: [{ ...dead(0, "r", 1), offset: from }], next: from + 1n, end: 1_000_000n, undecodable: null }) };
    const far = { selection: { kind: "records", records: Array.from({ length: 501 }, (_, i) => ({ partition: 0, offset: i * 1000 })) } };
    expect(await fieldsOf(previewRedrive(db, ctx.as.ordersOwner, internal, far, sparse, options))).toEqual({ code: "VALIDATION_FAILED", fields: ["selection.records"] });
    expect(await db.redriveRequest.count()).toBe(0);
  });

  it("is for the product's owners only: not another domain, not governance, not a read-only token", async () => {
    const all = { selection: { kind: "all" } };
    for (const who of [ctx.as.paymentsOwner, ctx.as.paymentsMember, ctx.as.reviewer, ctx.as.admin]) {
      expect((await fieldsOf(requestRedrive(db, who, internal, all, source, options))).code, who.userId).toBe("FORBIDDEN");
      expect((await fieldsOf(previewRedrive(db, who, internal, all, source, options))).code).toBe("FORBIDDEN");
    }
    const created = await createApiToken(db, ctx.as.ordersOwner, { name: "read-only", scopes: ["read"], expiresInDays: 1 });
    const actor = await authenticateApiToken(db, created.token, { method: "POST", path: "/test" });
    expect((await fieldsOf(requestRedrive(db, { userId: actor.id, ...(actor.token ? { token: actor.token } : {}) }, internal, all, source, options))).code).toBe("FORBIDDEN");
    expect(await db.redriveRequest.count()).toBe(0);
  });

  it("needs a dead-letter topic: a product without a DLQ rule has none to redrive", async () => {
    const plain = await activeProduct("Order Lines", "INTERNAL");
    await db.dataQualityRule.deleteMany({ where: { productId: plain } });
    expect(await fieldsOf(previewRedrive(db, ctx.as.ordersOwner, plain, { selection: { kind: "all" } }, source, options))).toMatchObject({ code: "NO_DEAD_LETTER_TOPIC" });
  });

  it("previews, then an INTERNAL product's request is approved at once and queued for the worker", async () => {
    const preview = await previewRedrive(db, ctx.as.ordersOwner, internal, { selection: { kind: "filter", rule: "non-negative-total" } }, source, options);
    expect({ count: preview.count, matched: preview.matched, alreadyRedriven: preview.alreadyRedriven, fourEyes: preview.fourEyes }).toEqual({ count: 3, matched: 3, alreadyRedriven: 0, fourEyes: false });
    expect(preview.records.map((r) => [r.offset, r.rule])).toEqual([[0n, "non-negative-total"], [1n, "non-negative-total"], [3n, "non-negative-total"]]);
    expect(await db.auditEvent.count({ where: { action: "product.redrive-previewed", entityId: internal } })).toBe(1);

    const { request } = await requestRedrive(db, ctx.as.ordersOwner, internal, { selection: { kind: "filter", rule: "non-negative-total" }, reason: "The producer no longer writes negative totals." }, source, options);
    expect(request).toMatchObject({ status: "APPROVED", previewed: 3, reason: "The producer no longer writes negative totals.", upTo: [{ partition: 0, end: "4" }] });
    expect(await db.provisioningTask.findMany({ where: { entityId: request.id }, select: { kind: true, entityType: true } })).toEqual([{ kind: "REDRIVE_DEAD_LETTERS", entityType: "RedriveRequest" }]);
    expect(await db.auditEvent.count({ where: { action: "product.redrive-requested", entityId: internal } })).toBe(1);

    // Once the worker claimed them, a record is never part of another redrive.
    await db.redrivenRecord.create({ data: { productId: internal, partition: 0, offset: 1n, requestId: request.id, state: "SENT" } });
    const again = await previewRedrive(db, ctx.as.ordersOwner, internal, { selection: { kind: "records", records: [{ partition: 0, offset: 1 }, { partition: 0, offset: 2 }] } }, source, options);
    expect({ count: again.count, alreadyRedriven: again.alreadyRedriven, shown: again.records.map((r) => r.offset) }).toEqual({ count: 1, alreadyRedriven: 1, shown: [2n] });
    expect(await fieldsOf(requestRedrive(db, ctx.as.ordersOwner, internal, { selection: { kind: "records", records: [{ partition: 0, offset: "1" }] } }, source, options))).toMatchObject({ code: "NOTHING_TO_REDRIVE" });
    // The same dead letter claimed twice at once: the primary key lets one in.
    // A run the task runner gave up on shows as FAILED with the task's error, not RUNNING forever.
    await db.provisioningTask.updateMany({ where: { entityId: request.id }, data: { status: "FAILED", lastError: "broker unreachable" } });
    expect((await listRedrives(db, ctx.as.ordersOwner, internal)).redrives.find((r) => r.id === request.id)).toMatchObject({ status: "FAILED", error: "broker unreachable" });
    const claims = await Promise.allSettled([0, 1].map(() => db.redrivenRecord.create({ data: { productId: internal, partition: 0, offset: 2n, requestId: request.id } })));
    expect(claims.map((c) => c.status).sort()).toEqual(["fulfilled", "rejected"]);
  });

  it("waits for a second person on a CONFIDENTIAL product: never the requester, another owner or governance decides", async () => {
    const { request, fourEyes } = await requestRedrive(db, ctx.as.ordersOwner, confidential, { selection: { kind: "all" }, reason: "Rules fixed." }, source, options);
    expect([request.status, fourEyes]).toEqual(["REQUESTED", true]);
    expect(await db.provisioningTask.count({ where: { entityId: request.id } })).toBe(0);
    // The second owner and governance are told; the requester is not.
    const event = await db.notificationEvent.findFirstOrThrow({ where: { kind: "redrive.requested", entityId: confidential } });
    const told = (await db.notification.findMany({ where: { eventId: event.id }, select: { userId: true } })).map((n) => n.userId).sort();
    expect(told).toEqual([secondOwner.userId, ctx.people.reviewer.id, ctx.people.reviewer2.id].sort());

    expect(await fieldsOf(decideRedrive(db, ctx.as.ordersOwner, confidential, request.id, { decision: "approve" }))).toMatchObject({ code: "FOUR_EYES" });
    expect(await fieldsOf(decideRedrive(db, ctx.as.paymentsOwner, confidential, request.id, { decision: "approve" }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await fieldsOf(decideRedrive(db, secondOwner, confidential, request.id, { decision: "reject" }))).toEqual({ code: "VALIDATION_FAILED", fields: ["reason"] });
    expect(await fieldsOf(decideRedrive(db, secondOwner, confidential, request.id, { decision: "maybe" }))).toEqual({ code: "VALIDATION_FAILED", fields: ["decision"] });
    // The list shows who may decide.
    const seen = await listRedrives(db, ctx.as.reviewer, confidential);
    expect(seen.redrives.map((r) => ({ status: r.status, canDecide: r.canDecide, requestedBy: r.requestedBy, previewed: r.previewed }))).toEqual([{ status: "REQUESTED", canDecide: true, requestedBy: "owner", previewed: 4 }]);
    expect((await listRedrives(db, ctx.as.ordersOwner, confidential)).redrives[0]?.canDecide).toBe(false);
    expect(await fieldsOf(listRedrives(db, ctx.as.paymentsOwner, confidential))).toMatchObject({ code: "FORBIDDEN" });

    // The review queue shows it to those who decide; the requester's is marked theirs; another domain's owner sees nothing.
    const queued = async (who: { userId: string }) => (await reviewQueue(db, await loadActor(db, who.userId))).redrives.map((r) => ({ id: r.id, mine: r.mine, previewed: r.previewed }));
    expect(await queued(ctx.as.reviewer)).toEqual([{ id: request.id, mine: false, previewed: 4 }]);
    expect(await queued(secondOwner)).toEqual([{ id: request.id, mine: false, previewed: 4 }]);
    expect(await queued(ctx.as.ordersOwner)).toEqual([{ id: request.id, mine: true, previewed: 4 }]);
    expect(await queued(ctx.as.paymentsOwner)).toEqual([]);

    const approved = await decideRedrive(db, ctx.as.reviewer, confidential, request.id, { decision: "approve" });
    expect(approved).toMatchObject({ status: "APPROVED", decidedById: ctx.people.reviewer.id });
    expect(await db.provisioningTask.count({ where: { entityId: request.id, kind: "REDRIVE_DEAD_LETTERS" } })).toBe(1);
    expect(await fieldsOf(decideRedrive(db, secondOwner, confidential, request.id, { decision: "approve" }))).toMatchObject({ code: "ALREADY_DECIDED" });
    expect(await db.auditEvent.count({ where: { action: "product.redrive-approved", entityId: confidential } })).toBe(1);

    // Rejected with a reason by the second owner: the requester is told why, nothing is queued.
    const other = await requestRedrive(db, ctx.as.ordersOwner, confidential, { selection: { kind: "records", records: [{ partition: 0, offset: 2 }] } }, source, options);
    const rejected = await decideRedrive(db, secondOwner, confidential, other.request.id, { decision: "reject", reason: "The currency list is not fixed yet." });
    expect(rejected).toMatchObject({ status: "REJECTED", decisionReason: "The currency list is not fixed yet." });
    expect(await db.provisioningTask.count({ where: { entityId: other.request.id } })).toBe(0);
    const decided = await db.notificationEvent.findFirstOrThrow({ where: { kind: "redrive.decided", entityId: confidential }, orderBy: { createdAt: "desc" } });
    expect(decided.title).toContain("rejected");
  });
});
