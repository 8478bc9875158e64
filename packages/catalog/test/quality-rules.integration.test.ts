import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  applyContracts,
  odcsProblems,
  planContracts,
  productContract,
  type OdcsContract,
  approveChangeRequest,
  approveProduct,
  defaultPolicySource,
  getProduct,
  loadActor,
  productReview,
  publishMajorVersion,
  registerProduct,
  registerSchema,
  rejectChangeRequest,
  reviewQueue,
  setQualityRules,
  subjectVersion,
  submitForReview,
  updatePolicy,
  type Db,
  type RegistryCaller,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

const orderSchema = JSON.stringify({
  type: "record",
  name: "OrderPlaced",
  namespace: "example.orders",
  fields: [
    { name: "orderId", type: "string" },
    { name: "customerId", type: "string", pii: true },
    { name: "totalCents", type: "long" },
    { name: "currency", type: "string" },
  ],
});

const nonNegative = { name: "non-negative-total", description: "A total is never below zero.", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "DLQ" };

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

async function draft(name: string) {
  return registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: orderSchema } }));
}

async function activeProduct(name: string) {
  const p = await draft(name);
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.provisioningTask.updateMany({ where: { entityId: p.id }, data: { status: "DONE" } });
  return db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
}

describe("data-quality rules are checked before anyone may submit them", () => {
  it("refuses CEL that does not compile with the parser's error and where it is", async () => {
    const p = await draft("Bad Syntax");
    const refusal = setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, expression: "message.totalCents >= 0 &&\n  (message.currency == 'EUR'" }] });
    await expect(refusal).rejects.toMatchObject({ status: 400, fields: { "rules.0.expression": [expect.stringMatching(/^Does not compile at line \d+, column \d+: /)] } });
    expect(await db.dataQualityRule.count({ where: { productId: p.id } })).toBe(0);
  });

  it("refuses a field the schema does not have and a name the client does not bind", async () => {
    const p = await draft("Missing Field");
    await expect(setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, expression: "message.total >= 0" }] })).rejects.toMatchObject({
      status: 400,
      fields: { "rules.0.expression": [expect.stringContaining("The schema has no field 'total'")] },
    });
    await expect(setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, expression: "record.totalCents >= 0" }] })).rejects.toMatchObject({
      fields: { "rules.0.expression": [expect.stringContaining("Unknown name 'record'")] },
    });
    // Comprehension variables are the expression's own; a CEL_FIELD rule needs a tag.
    await setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, name: "known-currency", expression: "['EUR', 'USD'].exists(c, c == message.currency)" }] });
    await expect(setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, kind: "CEL_FIELD", expression: "value != ''" }] })).rejects.toMatchObject({
      fields: { "rules.0.tags": [expect.stringContaining("at least one")] },
    });
    // CEL_FIELD binds what the client's executor binds: `name` and `fullName`, not `fieldName` (which would
    // fail in the client on every record, so the rule would never refuse one).
    await expect(setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, kind: "CEL_FIELD", tags: ["PII"], expression: "fieldName != 'x'" }] })).rejects.toMatchObject({
      fields: { "rules.0.expression": [expect.stringContaining("Unknown name 'fieldName'")] },
    });
    await setQualityRules(db, ctx.as.ordersOwner, p.id, { rules: [{ ...nonNegative, name: "pii-named", kind: "CEL_FIELD", tags: ["PII"], expression: "name != '' && fullName.endsWith(name) && typeName != '' && 'PII' in tags && has(message.totalCents)" }] });
  });

  it("keeps to the policy's limits", async () => {
    const p = await draft("Too Many Rules");
    const strict = defaultPolicySource().replace("maxRules: 20", "maxRules: 2");
    await updatePolicy(db, ctx.as.admin, { source: strict, reason: "Fewer rules for a while" });
    try {
      const rules = ["a", "b", "c"].map((n) => ({ ...nonNegative, name: `rule-${n}` }));
      await expect(setQualityRules(db, ctx.as.ordersOwner, p.id, { rules })).rejects.toMatchObject({ status: 400, fields: { rules: [expect.stringContaining("At most 2 data-quality rules")] } });
    } finally {
      await updatePolicy(db, ctx.as.admin, { source: defaultPolicySource(), reason: "Back to the default" });
    }
  });

  it("lets only the domain's owners set them", async () => {
    const p = await draft("Owners Only");
    await expect(setQualityRules(db, ctx.as.paymentsOwner, p.id, { rules: [nonNegative] })).rejects.toMatchObject({ status: 403 });
  });
});

describe("changing the rules of a live product", () => {
  it("is a reviewed change (four eyes, audited) that the registry serves once approved, with the DLQ topic queued for the worker", async () => {
    const product = await activeProduct("Ruled Orders");
    const tasksBefore = await db.provisioningTask.count({ where: { entityId: product.id } });
    await expect(setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [nonNegative] })).rejects.toMatchObject({ fields: { reason: ["Give a reason."] } });
    const requested = await setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [nonNegative], reason: "Negative totals broke the invoicing." });
    expect(requested).toMatchObject({ applied: false, changeRequestId: expect.any(String) });
    await expect(setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [{ ...nonNegative, onFailure: "ERROR" }], reason: "Another change of the rules." })).rejects.toMatchObject({ code: "CHANGE_PENDING" });
    // Nothing in force until approved.
    expect(await db.dataQualityRule.count({ where: { productId: product.id } })).toBe(0);
    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.changes).toContainEqual(expect.objectContaining({ id: requested.changeRequestId, kind: "QUALITY_RULES", payload: { from: [], to: [{ ...nonNegative, tags: [] }] } }));

    // The requester, even with governance's role, cannot approve it.
    await db.membership.create({ data: { userId: ctx.people.reviewer2.id, domainId: ctx.orders.id, role: "OWNER" } });
    const own = await setQualityRules(db, ctx.as.reviewer2, (await activeProduct("Self Review")).id, { rules: [nonNegative], reason: "My own change of the rules." });
    await expect(approveChangeRequest(db, ctx.as.reviewer2, own.changeRequestId ?? "")).rejects.toMatchObject({ status: 403, message: expect.stringContaining("Four-eyes") });
    await rejectChangeRequest(db, ctx.as.reviewer, own.changeRequestId ?? "", { reason: "Not like this" });
    await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.reviewer2.id, domainId: ctx.orders.id } } });

    await approveChangeRequest(db, ctx.as.reviewer, requested.changeRequestId ?? "");
    const page = await getProduct(db, await loadActor(db, ctx.people.paymentsOwner.id), product.id);
    expect(page.qualityRules).toEqual([{ ...nonNegative, tags: [] }]);
    expect(page.dlqTopic).toBe(`${product.topicName}.dlq`);
    const tasks = await db.provisioningTask.findMany({ where: { entityId: product.id }, orderBy: { step: "asc" } });
    expect(tasks.slice(tasksBefore).map((t) => t.kind)).toEqual(["CREATE_TOPIC", "GRANT_PRODUCER_ACL"]);
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "product.changeApproved" } })).toMatchObject({ data: { kind: "QUALITY_RULES", rules: "non-negative-total" } });

    // The Schema Registry API serves the rules and the metadata in Confluent's shape.
    const reviewer: RegistryCaller = { kind: "user", actor: await loadActor(db, ctx.people.reviewer.id) };
    const subject = `${product.topicName}-value`;
    const latest = await subjectVersion(db, reviewer, subject, "latest");
    expect(latest.ruleSet).toEqual({
      domainRules: [
        {
          name: "non-negative-total",
          doc: "A total is never below zero.",
          kind: "CONDITION",
          mode: "WRITE",
          type: "CEL",
          params: { "dlq.topic": `${product.topicName}.dlq` },
          expr: "message.totalCents >= 0",
          onSuccess: "NONE",
          onFailure: "DLQ",
          disabled: false,
        },
      ],
      migrationRules: [],
    });
    expect(latest.metadata).toEqual({
      tags: { "example.orders.OrderPlaced.customerId": ["PII"] },
      properties: { owner: "orders", classification: "CONFIDENTIAL", contact: "owner@orders.test", "sla.freshnessSeconds": "60", "sla.availabilityPct": "99.9", major_version: "1" },
    });

    // A client cannot bring its own rules or metadata, even with the approved schema.
    const owner: RegistryCaller = { kind: "user", actor: await loadActor(db, ctx.people.ordersOwner.id) };
    const forged = { schema: orderSchema, ruleSet: { domainRules: [{ name: "anything", kind: "CONDITION", type: "CEL", mode: "WRITE", expr: "true" }] } };
    await expect(registerSchema(db, owner, subject, forged, "http://portal.test")).rejects.toMatchObject({ status: 403, errorCode: 40301, message: expect.stringContaining("ruleSet and metadata come from the product's reviewed data contract") });
    await expect(registerSchema(db, owner, subject, { schema: orderSchema, metadata: { properties: { owner: "me" } } }, "http://portal.test")).rejects.toMatchObject({ status: 403 });
    expect(await registerSchema(db, owner, subject, { schema: orderSchema }, "http://portal.test")).toEqual({ id: latest.id });
  });

  it("is refused at approval when the rules in force changed meanwhile", async () => {
    const product = await activeProduct("Raced Rules");
    const first = await setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [nonNegative], reason: "Negative totals first." });
    // Someone set other rules directly in the database: the request no longer describes the change.
    await db.dataQualityRule.create({ data: { productId: product.id, position: 0, name: "other", kind: "CEL", expression: "true", mode: "WRITE", onFailure: "NONE" } });
    await expect(approveChangeRequest(db, ctx.as.reviewer, first.changeRequestId ?? "")).rejects.toMatchObject({ code: "RULES_CHANGED" });
  });
});

describe("a new major version", () => {
  const currencyRule = { name: "known-currency", description: "Only the currencies we settle.", kind: "CEL", expression: "message.currency in ['EUR', 'USD']", mode: "WRITE", onFailure: "ERROR" };
  // The next major version drops currency; totalCents stays, customerId stays PII.
  const order = JSON.parse(orderSchema) as { fields: { name: string }[] };
  const withoutCurrency = JSON.stringify({ ...order, fields: order.fields.filter((f) => f.name !== "currency") });

  it("carries the rules that fit its schema and the field encryption, names the rule left behind, and shows both to governance", async () => {
    const product = await draft("Carried Rules");
    await setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [nonNegative, currencyRule], encryptPii: true });
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });

    const next = await publishMajorVersion(db, ctx.as.ordersOwner, product.id, { definition: withoutCurrency, reason: "Currency moves to its own product." });
    expect(next.encryptPii).toBe(true);
    const review = await productReview(db, await loadActor(db, ctx.people.reviewer.id), next.id);
    expect(review.quality).toEqual({ rules: [expect.objectContaining({ name: "non-negative-total", expression: "message.totalCents >= 0", onFailure: "DLQ" })], encryptPii: true });
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: product.id, action: "product.majorVersionPublished" } });
    expect(audit.data).toMatchObject({ qualityRules: ["non-negative-total"], qualityRulesLeftBehind: ["known-currency"], encryptPii: true });
    // The predecessor keeps its own.
    expect((await productReview(db, await loadActor(db, ctx.people.reviewer.id), product.id)).quality.rules.map((r) => r.name)).toEqual(["non-negative-total", "known-currency"]);
  });

  it("takes a contract's rules and encryption, and refuses the publication (nothing written) when they do not fit its schema", async () => {
    const product = await activeProduct("Contract Major Rules");
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const base = await productContract(db, owner, product.id, { bootstrap: "127.0.0.1:9092" });
    const breaking = (definition: string, quality: unknown[]): OdcsContract => ({
      ...base,
      schema: base.schema?.map((o) => ({
        ...o,
        quality,
        customProperties: [...(o.customProperties ?? []).filter((p) => p.property !== "encryptPii" && p.property !== "schema"), { property: "schema", value: JSON.parse(definition) as unknown }, { property: "encryptPii", value: true }],
      })) as OdcsContract["schema"],
    });
    const cel = (name: string, implementation: string) => ({ name, type: "custom", engine: "cel", implementation, customProperties: [{ property: "onFailure", value: "ERROR" }] });
    const files = (c: OdcsContract) => ({ contracts: [{ content: stringify(c), source: "contracts/orders.yaml" }], allowNewMajorVersion: true });

    // Breaking under BACKWARD: a new field without a default.
    const withChannel = JSON.stringify({ ...order, fields: [...order.fields, { name: "channel", type: "string" }] });
    const refused = (await applyContracts(db, ctx.as.ordersOwner, files(breaking(withChannel, [cel("known-discount", "message.discountCents >= 0")])))).items[0];
    expect(refused).toMatchObject({ applied: false, refusal: { message: expect.stringContaining("discountCents") } });
    expect(await db.dataProduct.count({ where: { predecessorId: product.id } })).toBe(0);

    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(breaking(withChannel, [cel("positive-total", "message.totalCents > 0")])))).items[0];
    expect(applied).toMatchObject({ applied: true });
    const next = await db.dataProduct.findUniqueOrThrow({ where: { predecessorId: product.id } });
    expect(next.encryptPii).toBe(true);
    expect((await productReview(db, await loadActor(db, ctx.people.reviewer.id), next.id)).quality.rules.map((r) => [r.name, r.expression])).toEqual([["positive-total", "message.totalCents > 0"]]);
  });
});

describe("the ODCS contract's quality section", () => {
  const files = (c: OdcsContract) => ({ contracts: [{ content: stringify(c), source: "contracts/orders.yaml" }] });
  const withQuality = (c: OdcsContract, quality: unknown[]): OdcsContract => ({ ...c, schema: c.schema?.map((o) => ({ ...o, quality })) as OdcsContract["schema"] });

  it("round-trips through the download, kappa plan and kappa apply: a live product's rule change is requested for review", async () => {
    const product = await activeProduct("Contract Rules");
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const base = await productContract(db, owner, product.id, { bootstrap: "127.0.0.1:9092" });
    expect(base.schema?.[0]?.quality).toBeUndefined();
    const quality = [
      {
        name: "non-negative-total",
        description: "A total is never below zero.",
        type: "custom",
        engine: "cel",
        implementation: "message.totalCents >= 0",
        customProperties: [
          { property: "ruleKind", value: "CEL" },
          { property: "mode", value: "WRITE" },
          { property: "onFailure", value: "DLQ" },
        ],
      },
      { type: "text", description: "Orders arrive within a minute." },
    ];
    const edited = withQuality(base, quality);
    expect(odcsProblems(edited)).toEqual([]);
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(edited))).items[0];
    expect(plan).toMatchObject({ action: "update", errors: [], changes: [{ field: "qualityRules", from: [], to: ["non-negative-total"] }] });
    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(edited))).items[0];
    expect(applied).toMatchObject({ applied: true });
    const request = await db.productChangeRequest.findFirstOrThrow({ where: { productId: product.id, kind: "QUALITY_RULES", status: "REQUESTED" } });
    expect(request.reason).toContain("contracts/orders.yaml");
    await approveChangeRequest(db, ctx.as.reviewer, request.id);

    // The download now carries the rule; planning it again is no change.
    const downloaded = await productContract(db, owner, product.id, { bootstrap: "127.0.0.1:9092" });
    expect(downloaded.schema?.[0]?.quality).toEqual([quality[0]]);
    expect((await planContracts(db, ctx.as.ordersOwner, files(downloaded))).items[0]).toMatchObject({ action: "no-change", changes: [] });
  });

  it("field-level encryption (encryptPii) round-trips through the download, plan and apply as a reviewed rules change", async () => {
    const product = await activeProduct("Contract Encryption");
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const download = () => productContract(db, owner, product.id, { bootstrap: "127.0.0.1:9092" });
    const encryption = (c: OdcsContract) => c.schema?.[0]?.customProperties?.find((p) => p.property === "encryptPii")?.value;
    const setEncryption = (c: OdcsContract, value: boolean): OdcsContract => ({
      ...c,
      schema: c.schema?.map((o) => ({ ...o, customProperties: o.customProperties?.map((p) => (p.property === "encryptPii" ? { ...p, value } : p)) })),
    });
    const base = await download();
    // The schema classifies customerId PII: the download offers the switch, off.
    expect(encryption(base)).toBe(false);
    const edited = setEncryption(base, true);
    expect(odcsProblems(edited)).toEqual([]);
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(edited))).items[0];
    expect(plan).toMatchObject({ action: "update", errors: [], changes: [{ field: "encryptPii", from: false, to: true }] });
    expect(plan?.notes.join(" ")).toContain("Field-level encryption of the PII fields (turned on) changes through review");
    expect((await applyContracts(db, ctx.as.ordersOwner, files(edited))).items[0]).toMatchObject({ applied: true });
    // Requested, not applied: the same change the rules editor makes, with the contract as its reason.
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).encryptPii).toBe(false);
    const request = await db.productChangeRequest.findFirstOrThrow({ where: { productId: product.id, kind: "QUALITY_RULES", status: "REQUESTED" } });
    expect(request.payload).toMatchObject({ from: [], to: [], encryptPii: { from: false, to: true } });
    expect(request.reason).toContain("contracts/orders.yaml");
    // Four eyes: the owner who applied the file cannot approve it (an owner is no reviewer anyway; governance decides).
    await expect(approveChangeRequest(db, ctx.as.ordersOwner, request.id)).rejects.toMatchObject({ status: 403 });
    await approveChangeRequest(db, ctx.as.reviewer, request.id);
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).encryptPii).toBe(true);
    // The registry now serves the ENCRYPT rule; the download says true, and planning it again is no change.
    const caller: RegistryCaller = { kind: "user", actor: owner };
    const served = await subjectVersion(db, caller, `${product.topicName}-value`, "latest");
    expect(served.ruleSet?.domainRules?.map((r: { type: string }) => r.type)).toContain("ENCRYPT");
    const downloaded = await download();
    expect(encryption(downloaded)).toBe(true);
    expect((await planContracts(db, ctx.as.ordersOwner, files(downloaded))).items[0]).toMatchObject({ action: "no-change", changes: [] });
    // A file without the property turns it off: planned as such, through review again.
    const without: OdcsContract = { ...downloaded, schema: downloaded.schema?.map((o) => ({ ...o, customProperties: o.customProperties?.filter((p) => p.property !== "encryptPii") })) };
    expect((await planContracts(db, ctx.as.ordersOwner, files(without))).items[0]).toMatchObject({ action: "update", changes: [{ field: "encryptPii", from: true, to: false }] });
  });

  it("plans encryption for a schema without PII fields as an error naming the place in the file, and applies nothing", async () => {
    const plain = await registerProduct(
      db,
      ctx.as.ordersOwner,
      productInput(ctx.orders.id, { name: "Contract Plain", schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "Plain", fields: [{ name: "orderId", type: "string" }] }) } }),
    );
    await submitForReview(db, ctx.as.ordersOwner, plain.id);
    await approveProduct(db, ctx.as.reviewer, plain.id);
    const base = await productContract(db, await loadActor(db, ctx.people.ordersOwner.id), plain.id, { bootstrap: "127.0.0.1:9092" });
    expect(base.schema?.[0]?.customProperties?.map((p) => p.property)).not.toContain("encryptPii");
    const edited: OdcsContract = { ...base, schema: base.schema?.map((o) => ({ ...o, customProperties: [...(o.customProperties ?? []), { property: "encryptPii", value: true }] })) };
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(edited))).items[0];
    expect(plan?.errors).toEqual(['schema[0].customProperties.encryptPii: The schema classifies no field as PII: there is nothing to encrypt. Mark the fields that hold personal data as PII ("pii": true in Avro, "x-pii": true in JSON Schema) first.']);
    expect((await applyContracts(db, ctx.as.ordersOwner, files(edited))).items[0]).toMatchObject({ applied: false });
    expect(await db.productChangeRequest.count({ where: { productId: plain.id } })).toBe(0);
  });

  it("plans a rule that does not compile as an error naming its place in the file", async () => {
    const product = await activeProduct("Contract Bad Rule");
    const base = await productContract(db, await loadActor(db, ctx.people.ordersOwner.id), product.id, { bootstrap: "127.0.0.1:9092" });
    const bad = withQuality(base, [{ name: "broken", type: "custom", engine: "cel", implementation: "message.totalCents >=", customProperties: [{ property: "onFailure", value: "ERROR" }] }]);
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(bad))).items[0];
    expect(plan?.errors).toEqual([expect.stringMatching(/^schema\[0\]\.quality\[0\]\.implementation: Does not compile at line 1, column \d+/)]);
    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(bad))).items[0];
    expect(applied).toMatchObject({ applied: false });
    expect(await db.productChangeRequest.count({ where: { productId: product.id } })).toBe(0);
  });
});
