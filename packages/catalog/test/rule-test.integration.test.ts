import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveChangeRequest,
  approveProduct,
  approveSubscription,
  createServiceAccount,
  evaluateSample,
  loadActor,
  qualityRulesImpact,
  registerProduct,
  requestSubscription,
  setQualityRules,
  submitForReview,
  testQualityRules,
  type Db,
} from "../src/index.ts";
import type { SourceRecord } from "../src/records/source.ts";
import { recordViewer } from "../src/records/viewer.ts";
import { openTestDatabase, productInput, recordsSource, seedPeople } from "./fixtures.ts";

/*
 * Issue 29, the rule test: an owner evaluates edited, unsaved rules against
 * the newest records of the product's topic (an in-memory source here; the
 * worker journey drives the real broker), with the evaluator observed quality
 * uses, and sees the failing records as the message browser shows them to
 * that viewer.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let productId = "";
let draftId = "";
let ordersMember: { userId: string };
const TOPIC: SourceRecord[] = [];

const schema = JSON.stringify({
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { email: { type: "string", "x-pii": true }, amount: { type: "number" }, currency: { type: "string" } },
  required: ["email", "amount"],
});

const record = (offset: number, value: unknown): SourceRecord => ({
  partition: 0,
  offset: BigInt(offset),
  timestamp: BigInt(1_770_000_000_000 + offset),
  timestampType: "CreateTime",
  key: Buffer.from(`k-${offset}`),
  value: value === null ? null : Buffer.from(typeof value === "string" ? value : JSON.stringify(value)),
  headers: [],
});

const source = recordsSource(TOPIC);
const options = { ratePerMinute: 1_000 };
const rule = (name: string, expression: string, extra: Record<string, unknown> = {}) => ({ name, description: "", kind: "CEL", expression, mode: "WRITE", onFailure: "DLQ", ...extra });

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  const member = await db.user.create({ data: { email: "member@orders.test", name: "member" } });
  await db.membership.create({ data: { userId: member.id, domainId: ctx.orders.id, role: "MEMBER" } });
  ordersMember = { userId: member.id };
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Customer Payments", classification: "CONFIDENTIAL", partitions: 1, schema: { format: "JSON_SCHEMA", definition: schema } }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  productId = p.id;
  const d = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Draft Payments", classification: "CONFIDENTIAL", partitions: 1, schema: { format: "JSON_SCHEMA", definition: schema } }));
  draftId = d.id;
  // The payments domain subscribes (PII not asked for): its members read the records masked.
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-reader" });
  const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: account.id, purpose: "Reconcile payments against orders." });
  await approveSubscription(db, ctx.as.ordersOwner, sub.id);
  TOPIC.push(
    record(0, { email: "alice@example.com", amount: 3, currency: "EUR" }),
    record(1, { email: "bob@example.com", amount: -2, currency: "EUR" }),
    record(2, "not json at all"),
    record(3, null),
    record(4, { email: "carol-at-example.com", amount: 7, currency: "GBP" }),
    record(5, { email: "dave@example.com", amount: -5 }),
  );
});
afterAll(async () => dispose());

const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    const e = error as { code?: string; status?: number; fields?: Record<string, string[]> };
    return { code: e.code, status: e.status, fields: e.fields ?? {} };
  }
  throw new Error("expected a refusal");
};

describe("the rule test", () => {
  it("evaluates unsaved rules against the newest records: failed only when false, errors counted apart, failing records newest first", async () => {
    const result = await testQualityRules(
      db,
      ctx.as.ordersOwner,
      productId,
      {
        rules: [
          rule("non-negative", "message.amount >= 0"),
          rule("known-currency", "message.currency in ['EUR', 'USD']"),
          rule("email-like", "value.contains('@')", { kind: "CEL_FIELD", tags: ["PII"] }),
        ],
      },
      source,
      options,
    );
    expect(result).toMatchObject({
      topic: expect.stringContaining("customer-payments"),
      sampled: 6,
      evaluated: 4,
      undecodable: 1,
      tombstones: 1,
      failingRecords: 3,
      rules: [
        { name: "non-negative", passed: 2, failed: 2, errored: 0 },
        // Record 5 has no currency: the expression errs, the record passes the rule (as the client lets it).
        { name: "known-currency", passed: 2, failed: 1, errored: 1 },
        { name: "email-like", passed: 3, failed: 1, errored: 0 },
      ],
    });
    expect(result.failing.map((r) => [Number(r.offset), r.failed])).toEqual([
      [5, ["non-negative"]],
      [4, ["known-currency", "email-like"]],
      [1, ["non-negative"]],
    ]);
    // The owner sees what the message browser shows an owner: nothing masked.
    expect(result.failing[2]?.value).toMatchObject({ encoding: "json", value: { email: "bob@example.com", amount: -2 }, masked: [] });
    // Nothing was saved or submitted; the read is audited.
    expect(await db.dataQualityRule.count({ where: { productId } })).toBe(0);
    expect(await db.productChangeRequest.count({ where: { productId } })).toBe(0);
    const audit = await db.auditEvent.findFirst({ where: { entityId: productId, action: "product.rules-tested" } });
    expect(audit?.data).toMatchObject({ records: 6, failing: 3, rules: ["non-negative", "known-currency", "email-like"] });
  });

  it("refuses rules the catalog would refuse, on the rule's own field, before reading anything", async () => {
    const before = await db.auditEvent.count({ where: { action: "product.rules-tested" } });
    const bad = await refusal(
      testQualityRules(db, ctx.as.ordersOwner, productId, { rules: [rule("fine", "message.amount >= 0"), rule("broken", "message.amount >= (0"), rule("missing", "message.total > 0")] }, source, options),
    );
    expect(bad.code).toBe("VALIDATION_FAILED");
    expect(Object.keys(bad.fields).sort()).toEqual(["rules.1.expression", "rules.2.expression"]);
    expect(bad.fields["rules.1.expression"]?.[0]).toMatch(/^Does not compile at line 1, column \d+/);
    expect(bad.fields["rules.2.expression"]?.[0]).toContain("The schema has no field 'total'");
    expect((await refusal(testQualityRules(db, ctx.as.ordersOwner, productId, { rules: [rule("x", "true")], extra: 1 }, source, options))).code).toBe("VALIDATION_FAILED");
    expect(await db.auditEvent.count({ where: { action: "product.rules-tested" } })).toBe(before);
  });

  it("is for the owners of the product's domain only: not a member, a subscriber, governance or an admin", async () => {
    const rules = { rules: [rule("non-negative", "message.amount >= 0")] };
    for (const who of [ordersMember, ctx.as.paymentsOwner, ctx.as.paymentsMember, ctx.as.reviewer, ctx.as.admin]) {
      expect((await refusal(testQualityRules(db, who, productId, rules, source, options))).code, who.userId).toBe("FORBIDDEN");
    }
    // A draft has no records on the cluster to test against.
    expect((await refusal(testQualityRules(db, ctx.as.ordersOwner, draftId, rules, source, options))).code).toBe("NOT_ON_CLUSTER");
  });

  it("shows failing records as the message browser masks them for the viewer, while the rules see the clear values", async () => {
    const viewer = await recordViewer(db, await loadActor(db, ctx.people.paymentsMember.id), productId);
    expect(viewer.values.piiVisible).toBe(false);
    const result = evaluateSample([{ name: "email-like", description: "", kind: "CEL_FIELD", expression: "value.contains('@')", mode: "WRITE", onFailure: "NONE", tags: ["PII"] }], { format: "JSON_SCHEMA", definition: schema }, TOPIC, viewer);
    expect(result.rules).toEqual([{ name: "email-like", passed: 3, failed: 1, errored: 0 }]);
    expect(result.failing).toHaveLength(1);
    expect(result.failing[0]?.value).toMatchObject({ value: { email: "[masked]", amount: 7 }, masked: ["email"] });
  });
});

describe("what a pending change of rules would do, for its review", () => {
  it("evaluates the rules in force and the proposed ones on the newest records, counts only: per rule, failing records, and those a producer's serializer would keep off the topic", async () => {
    // Its own live product (the same records): the tests above count this product's change requests.
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Order Payments", classification: "CONFIDENTIAL", partitions: 1, schema: { format: "JSON_SCHEMA", definition: schema } }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
    const inForce = await setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [rule("non-negative", "message.amount >= 0", { onFailure: "NONE" })], reason: "Count negative amounts." });
    await approveChangeRequest(db, ctx.as.reviewer, inForce.changeRequestId!);
    const change = await setQualityRules(db, ctx.as.ordersOwner, p.id, {
      rules: [rule("non-negative", "message.amount >= 0", { onFailure: "DLQ" }), rule("known-currency", "message.currency in ['EUR', 'USD']", { onFailure: "ERROR" }), rule("big-enough", "message.amount > 3", { mode: "READ", onFailure: "ERROR" })],
      reason: "Dead-letter negative amounts, refuse unknown currencies.",
    });
    const id = change.changeRequestId!;

    const impact = await qualityRulesImpact(db, ctx.as.reviewer, id, source, options);
    expect(impact).toMatchObject({ changeRequestId: id, productId: p.id, sampled: 6, evaluated: 4, undecodable: 1, tombstones: 1 });
    expect(impact.current).toEqual({ rules: [{ name: "non-negative", mode: "WRITE", onFailure: "NONE", passed: 2, failed: 2, errored: 0 }], failingRecords: 2, keptOffTopic: 0 });
    expect(impact.proposed).toEqual({
      rules: [
        { name: "non-negative", mode: "WRITE", onFailure: "DLQ", passed: 2, failed: 2, errored: 0 },
        { name: "known-currency", mode: "WRITE", onFailure: "ERROR", passed: 2, failed: 1, errored: 1 },
        { name: "big-enough", mode: "READ", onFailure: "ERROR", passed: 1, failed: 3, errored: 0 },
      ],
      // Records 0 (amount 3: big-enough only), 1 and 5 (negative), 4 (GBP); a READ rule keeps nothing off the topic.
      failingRecords: 4,
      keptOffTopic: 3,
    });
    // Nothing of a record: a reviewer may not read the product's data.
    expect(JSON.stringify(impact)).not.toMatch(/example\.com|alice|bob|carol|dave|GBP/);
    const audit = await db.auditEvent.findFirst({ where: { entityId: p.id, action: "changeRequest.rules-impact-evaluated" } });
    expect(audit?.data).toMatchObject({ changeRequestId: id, records: 6, failing: { current: 2, proposed: 4 } });

    // The owners who asked may look too; nobody else.
    expect((await qualityRulesImpact(db, ctx.as.ordersOwner, id, source, options)).proposed.keptOffTopic).toBe(3);
    for (const who of [ordersMember, ctx.as.paymentsOwner, ctx.as.paymentsMember]) {
      expect((await refusal(qualityRulesImpact(db, who, id, source, options))).code, who.userId).toBe("FORBIDDEN");
    }
    // Only a pending change of rules.
    expect((await refusal(qualityRulesImpact(db, ctx.as.reviewer, inForce.changeRequestId!, source, options))).code).toBe("INVALID_TRANSITION");
    expect((await refusal(qualityRulesImpact(db, ctx.as.reviewer, "no-such-change", source, options))).code).toBe("NOT_FOUND");
  });
});
