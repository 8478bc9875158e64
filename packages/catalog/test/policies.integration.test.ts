import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  defaultPolicySource,
  policyOverview,
  registerProduct,
  submitForReview,
  updatePolicy,
  updateProduct,
  loadActor,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const piiSchema = JSON.stringify({ type: "record", name: "Customer", fields: [{ name: "customerId", type: "string" }, { name: "email", type: "string", pii: true }] });

describe("policies in catalog actions", () => {
  it("refuses a violating registration with the rule ids, writes nothing, and records the refusal", async () => {
    const error = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Customer Contacts", schema: { format: "AVRO", definition: piiSchema } })).catch((e) => e);
    expect(error).toMatchObject({ status: 422, code: "POLICY_VIOLATION", details: { policy: { version: 1, rules: ["pii.classification"] } } });
    expect(error.fields.classification[0]).toMatch(/PII field email: the product must be CONFIDENTIAL or RESTRICTED, not INTERNAL\. \(policy rule pii.classification\)/);
    expect(await db.dataProduct.count({ where: { name: "Customer Contacts" } })).toBe(0);
    const refusal = await db.auditEvent.findFirstOrThrow({ where: { action: "policy.refused" }, orderBy: { id: "desc" } });
    expect(refusal).toMatchObject({ actorId: ctx.people.ordersOwner.id, entityType: "DataProduct", entityId: "(not created)", data: { event: "product.register", blocking: ["pii.classification"] } });
    const evaluation = await db.policyEvaluation.findFirstOrThrow({ where: { decision: "REFUSED" }, orderBy: { createdAt: "desc" } });
    expect(evaluation).toMatchObject({ policyVersion: 1, event: "product.register", failures: 1 });
  });

  it("stores an ALLOWED evaluation with each change and names it in the audit event", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Customer Profiles", classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: piiSchema } }));
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: p.id, action: "product.registered" } });
    const summary = (audit.data as { policy: { policyEvaluationId: string; warned: string[] } }).policy;
    // Forever retention without tiered storage: the warn rule informs, it does not block.
    expect(summary.warned).toEqual(["topic.tiered-storage"]);
    const evaluation = await db.policyEvaluation.findUniqueOrThrow({ where: { id: summary.policyEvaluationId } });
    expect(evaluation).toMatchObject({ entityId: p.id, decision: "ALLOWED", warnings: 1, failures: 0 });
    await expect(db.$executeRaw`UPDATE "PolicyEvaluation" SET decision = 'REFUSED' WHERE id = ${evaluation.id}`).rejects.toThrow(/append-only/);
  });

  it("an update may not introduce a violation, but one a newer policy created does not block other edits", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Audit Trail" }));
    await expect(updateProduct(db, ctx.as.ordersOwner, p.id, { partitions: 100 })).rejects.toMatchObject({ code: "POLICY_VIOLATION", details: { policy: { rules: ["topic.partitions"] } } });
    // A stricter policy: at most 4 partitions. The product (6) now violates it...
    const stricter = defaultPolicySource().replace("default: { min: 1, max: 64 }", "default: { min: 1, max: 4 }");
    const { version, violations } = await updatePolicy(db, ctx.as.admin, { source: stricter, reason: "Smaller cluster for now" });
    expect(version).toBe(2);
    expect(violations.find((v) => v.productId === p.id)?.failed.map((r) => r.ruleId)).toEqual(["topic.partitions"]);
    // ...but its description can still change, while submitting it is refused.
    await updateProduct(db, ctx.as.ordersOwner, p.id, { description: "Every change to an order, for auditors." });
    await expect(submitForReview(db, ctx.as.ordersOwner, p.id)).rejects.toMatchObject({ code: "POLICY_VIOLATION", details: { policy: { version: 2, rules: ["topic.partitions"] } } });
    const overview = await policyOverview(db, await loadActor(db, ctx.people.reviewer.id));
    expect(overview.current.version).toBe(2);
    expect(overview.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(overview.violations.some((v) => v.productId === p.id)).toBe(true);
    await updatePolicy(db, ctx.as.admin, { source: defaultPolicySource(), reason: "Back to the default" });
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
  });

  it("only admins change the policy; bad YAML and identical text are refused", async () => {
    await expect(updatePolicy(db, ctx.as.reviewer, { source: defaultPolicySource() + "\n# x", reason: "Trying it" })).rejects.toMatchObject({ status: 403 });
    await expect(updatePolicy(db, ctx.as.admin, { source: "rules: [", reason: "Broken" })).rejects.toMatchObject({ status: 400, fields: { source: [expect.stringMatching(/./)] } });
    await expect(updatePolicy(db, ctx.as.admin, { source: defaultPolicySource(), reason: "Same again" })).rejects.toMatchObject({ status: 400, message: /Nothing to change/ });
  });
});
