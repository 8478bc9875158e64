import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  applyContracts,
  approveProduct,
  loadActor,
  odcsProblems,
  planContracts,
  productContract,
  registerProduct,
  submitForReview,
  type Db,
  type OdcsContract,
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

const BOOTSTRAP = { bootstrap: "127.0.0.1:9092" };
const schemaV1 = { type: "record", name: "Shipment", fields: [{ name: "shipmentId", type: "string" }, { name: "carrier", type: "string" }] };

async function exported(productId: string): Promise<OdcsContract> {
  return productContract(db, await loadActor(db, ctx.people.ordersOwner.id), productId, BOOTSTRAP);
}

const files = (...contracts: OdcsContract[]) => ({ contracts: contracts.map((c, i) => ({ content: stringify(c), source: `contracts/file-${i}.yaml` })) });
const setCustom = (c: OdcsContract, property: string, value: unknown): OdcsContract => ({ ...c, customProperties: c.customProperties?.map((p) => (p.property === property ? { ...p, value } : p)) });
const setSchema = (c: OdcsContract, schema: object): OdcsContract => ({
  ...c,
  schema: c.schema?.map((o) => ({ ...o, properties: [], customProperties: o.customProperties?.map((p) => (p.property === "schema" ? { ...p, value: schema } : p)) })),
});

describe("contracts: plan and apply", () => {
  let activeId = "";

  it("an exported contract is valid ODCS and plans as no change (lossless through the catalog)", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Shipments", keyFields: [], schema: { format: "AVRO", definition: JSON.stringify(schemaV1) } }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    activeId = p.id;
    const contract = await exported(p.id);
    expect(odcsProblems(contract)).toEqual([]);
    expect(contract.id).toBe("orders.shipments");
    const { items } = await planContracts(db, ctx.as.ordersOwner, files(contract));
    expect(items[0]).toMatchObject({ action: "no-change", productId: p.id, changes: [], errors: [] });
  });

  it("a new contract plans a create, applies into review with its source, and a second apply is a no-op", async () => {
    const base = await exported(activeId);
    const contract: OdcsContract = { ...base, id: "orders.returns-feed", name: "Returns Feed", dataProduct: "Returns Feed", customProperties: base.customProperties?.filter((p) => p.property !== "kappaStatus") };
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(contract))).items[0];
    expect(plan).toMatchObject({ action: "create", targetTopic: "orders.returns-feed.v1", errors: [], policy: { blocked: false } });
    expect(plan?.changes.find((c) => c.field === "partitions")).toEqual({ field: "partitions", from: null, to: 6 });

    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(contract))).items[0];
    expect(applied).toMatchObject({ action: "create", applied: true, status: "IN_REVIEW" });
    const product = await db.dataProduct.findUniqueOrThrow({ where: { id: applied?.productId ?? "" } });
    expect(product).toMatchObject({ status: "IN_REVIEW", contractSource: "contracts/file-0.yaml", topicName: "orders.returns-feed.v1" });

    const again = (await applyContracts(db, ctx.as.ordersOwner, files(contract))).items[0];
    expect(again).toMatchObject({ action: "no-change", applied: false });
    expect(await db.dataProduct.count({ where: { slug: "returns-feed" } })).toBe(1);
  });

  it("metadata changes plan field by field and apply to an ACTIVE product", async () => {
    const contract = await exported(activeId);
    const changed: OdcsContract = { ...contract, description: { purpose: "Every shipment handed to a carrier, with its tracking id." }, tags: ["orders", "shipping"] };
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(changed))).items[0];
    expect(plan?.action).toBe("update");
    expect(plan?.changes).toEqual([
      { field: "description", from: "Every order placed, as it happens.", to: "Every shipment handed to a carrier, with its tracking id." },
      { field: "tags", from: ["orders"], to: ["orders", "shipping"] },
    ]);
    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(changed))).items[0];
    expect(applied?.applied).toBe(true);
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: activeId } })).tags).toEqual(["orders", "shipping"]);
    expect((await planContracts(db, ctx.as.ordersOwner, files(changed))).items[0]?.action).toBe("no-change");
  });

  it("a compatible schema is a new schema version; a breaking one or a locked field is a new major version", async () => {
    // Stand-in for the worker: the topic exists, the product is ACTIVE.
    await db.dataProduct.update({ where: { id: activeId }, data: { status: "ACTIVE" } });
    const contract = await exported(activeId);
    const compatible = setSchema(contract, { ...schemaV1, fields: [...schemaV1.fields, { name: "trackingId", type: ["null", "string"], default: null }] });
    const minor = (await planContracts(db, ctx.as.ordersOwner, files(compatible))).items[0];
    expect(minor).toMatchObject({ action: "new-schema-version", schema: { change: "new-version", mode: "BACKWARD", compatible: true, issues: [] } });

    const breaking = setSchema(contract, { ...schemaV1, fields: [...schemaV1.fields, { name: "weightGrams", type: "long" }] });
    const major = (await planContracts(db, ctx.as.ordersOwner, files(breaking))).items[0];
    expect(major).toMatchObject({ action: "new-major-version", targetTopic: "orders.shipments.v2", schema: { compatible: false } });
    expect(major?.schema.issues[0]).toMatchObject({ path: "weightGrams" });

    const partitions = (await planContracts(db, ctx.as.ordersOwner, files(setCustom(contract, "partitions", 12)))).items[0];
    expect(partitions).toMatchObject({ action: "new-major-version", changes: [{ field: "partitions", from: 6, to: 12 }] });
    const mode = (await planContracts(db, ctx.as.ordersOwner, files(setCustom(contract, "compatibilityMode", "NONE")))).items[0];
    expect(mode?.errors[0]).toMatch(/reviewed change/);

    // Applying: the compatible version is proposed for review; applying it again is a no-op while it waits.
    const proposed = (await applyContracts(db, ctx.as.ordersOwner, files(compatible))).items[0];
    expect(proposed?.refusal).toBeUndefined();
    expect(proposed).toMatchObject({ action: "new-schema-version", applied: true });
    expect((await db.schemaVersion.findFirstOrThrow({ where: { productId: activeId }, orderBy: { version: "desc" } })).status).toBe("PENDING");
    expect((await applyContracts(db, ctx.as.ordersOwner, files(compatible))).items[0]).toMatchObject({ action: "no-change", applied: false });
    await db.schemaVersion.deleteMany({ where: { productId: activeId, status: "PENDING" } });

    // The plan says plainly what a new major version does.
    expect(major?.notes.join(" ")).toMatch(/NEW MAJOR VERSION: applying creates orders\.shipments\.v2 in review .* only with --new-major-version\. orders\.shipments\.v1 stays as it is until orders\.shipments\.v2 is approved/);
    // Without the explicit flag nothing is created and v1 is untouched.
    const v1Before = await db.dataProduct.findUniqueOrThrow({ where: { id: activeId } });
    const withTags: OdcsContract = { ...breaking, tags: ["orders", "shipping", "carriers"], description: { purpose: "Every shipment, with its weight." } };
    const unconfirmed = (await applyContracts(db, ctx.as.ordersOwner, files(withTags))).items[0];
    expect(unconfirmed).toMatchObject({ action: "new-major-version", applied: false, refusal: { code: "NEW_MAJOR_VERSION_NOT_CONFIRMED" } });
    expect(await db.dataProduct.count({ where: { topicName: "orders.shipments.v2" } })).toBe(0);

    // With it, the breaking one becomes v2 in review with everything in the file; v1 stays exactly as it was.
    const published = (await applyContracts(db, ctx.as.ordersOwner, { ...files(withTags), allowNewMajorVersion: true })).items[0];
    expect(published).toMatchObject({ action: "new-major-version", applied: true, topic: "orders.shipments.v2", status: "IN_REVIEW" });
    expect(await db.dataProduct.findUniqueOrThrow({ where: { id: activeId } })).toEqual(v1Before);
    const v2 = await db.dataProduct.findUniqueOrThrow({ where: { topicName: "orders.shipments.v2" } });
    expect(v2).toMatchObject({ contractSource: "contracts/file-0.yaml", tags: ["orders", "shipping", "carriers"], description: "Every shipment, with its weight.", predecessorId: activeId });
    expect((await planContracts(db, ctx.as.ordersOwner, files(withTags))).items[0]).toMatchObject({ action: "no-change", topic: "orders.shipments.v2" });

    // Approval of v2 deprecates v1 (the policy's 30 days, no sunset was given).
    await approveProduct(db, ctx.as.reviewer, v2.id);
    expect(await db.dataProduct.findUniqueOrThrow({ where: { id: activeId } })).toMatchObject({ status: "DEPRECATED", decisionReason: expect.stringMatching(/^Superseded by orders\.shipments\.v2/) });
  });

  it("a topic setting changed in the file carries into the new major version", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Parcels", keyFields: [], schema: { format: "AVRO", definition: JSON.stringify(schemaV1) } }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
    const contract = setCustom({ ...(await exported(p.id)), tags: ["parcels"] }, "partitions", 12);
    const applied = (await applyContracts(db, ctx.as.ordersOwner, { ...files(contract), allowNewMajorVersion: true })).items[0];
    expect(applied?.refusal).toBeUndefined();
    expect(await db.dataProduct.findUniqueOrThrow({ where: { topicName: "orders.parcels.v2" } })).toMatchObject({ partitions: 12, tags: ["parcels"], status: "IN_REVIEW" });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("ACTIVE");
  });

  it("policies are evaluated in the plan and refuse on apply with the rule id; other domains cannot apply", async () => {
    const base = { ...(await exported(activeId)), id: "orders.shipments" };
    const pii = setSchema({ ...base, id: "orders.customer-list", name: "Customer List", dataProduct: "Customer List" }, { type: "record", name: "C", fields: [{ name: "email", type: "string", pii: true }] });
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(pii))).items[0];
    expect(plan?.policy.blocked).toBe(true);
    expect(plan?.policy.results.find((r) => r.outcome === "fail")?.ruleId).toBe("pii.classification");
    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(pii))).items[0];
    expect(applied).toMatchObject({ applied: false, refusal: { code: "POLICY_VIOLATION", details: { policy: { rules: ["pii.classification"] } } } });
    expect(await db.dataProduct.count({ where: { slug: "customer-list" } })).toBe(0);

    const foreign = (await planContracts(db, ctx.as.paymentsOwner, files(base))).items[0];
    expect(foreign).toMatchObject({ action: "skipped", errors: [], skipped: 'Not yours to change: only owners of domain "orders" publish its products.' });
    const before = await db.dataProduct.findMany({ where: { domainId: ctx.orders.id }, orderBy: { id: "asc" } });
    const changed = { ...base, tags: ["taken-over"] };
    const appliedForeign = (await applyContracts(db, ctx.as.paymentsOwner, files(changed))).items[0];
    expect(appliedForeign).toMatchObject({ action: "skipped", applied: false });
    expect(appliedForeign?.refusal).toBeUndefined();
    expect(await db.dataProduct.findMany({ where: { domainId: ctx.orders.id }, orderBy: { id: "asc" } })).toEqual(before);
  });

  it("a broken file is an error item naming the place, not a failed request", async () => {
    const { items } = await planContracts(db, ctx.as.ordersOwner, { contracts: [{ content: "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n" }] });
    expect(items[0]?.action).toBe("error");
    expect(items[0]?.errors.join(" ")).toMatch(/domain/);
  });
});

// Issue 34: a derived product's Flink SQL statement in its contract file
// (schema[0].customProperties.derivedStatement). Planning a statement needs
// Flink, so the derived product is made as the worker would leave it, as the
// other catalog tests of derived products do.
describe("contracts: a derived product's statement", () => {
  const STATEMENT = "SELECT window_start AS windowStart, status, COUNT(*) AS changes\nFROM TABLE(TUMBLE(TABLE `orders.order-status.v1`, DESCRIPTOR(updatedAt), INTERVAL '1' MINUTE))\nGROUP BY window_start, window_end, status";
  const flinkSchema = { type: "object", properties: { windowStart: { type: "string", format: "date-time" }, status: { type: "string" }, changes: { type: "integer" } }, required: ["windowStart", "changes"] };
  let derivedId = "";
  let inputId = "";

  const active = async (name: string, schema: { format: string; definition: string }) => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, keyFields: [], schema }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    await db.provisioningTask.updateMany({ where: { entityId: p.id }, data: { status: "DONE" } });
    return db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  };
  const setStatement = (c: OdcsContract, value: string | undefined): OdcsContract => ({
    ...c,
    schema: c.schema?.map((o) => ({
      ...o,
      customProperties: value === undefined ? o.customProperties?.filter((p) => p.property !== "derivedStatement") : o.customProperties?.map((p) => (p.property === "derivedStatement" ? { ...p, value } : p)),
    })),
  });
  const state = async () => ({
    product: await db.dataProduct.findUniqueOrThrow({ where: { id: derivedId } }),
    derived: await db.derivedProduct.findUniqueOrThrow({ where: { productId: derivedId } }),
    schemas: await db.schemaVersion.count({ where: { productId: derivedId } }),
    products: await db.dataProduct.count({ where: { slug: "order-status-per-minute" } }),
  });

  beforeAll(async () => {
    inputId = (await active("Order Status", { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object", properties: { status: { type: "string" }, updatedAt: { type: "string", format: "date-time" } } }) })).id;
    const derived = await active("Order Status per Minute", { format: "JSON_SCHEMA", definition: JSON.stringify(flinkSchema) });
    derivedId = derived.id;
    await db.productInput.create({ data: { productId: derivedId, inputProductId: inputId } });
    await db.derivedProduct.create({ data: { productId: derivedId, statement: STATEMENT, jobId: "b".repeat(32), jobState: "RUNNING" } });
  });

  it("the exported contract carries the statement and plans as no change; blanks, CRLF and a final semicolon are no change either", async () => {
    const contract = await exported(derivedId);
    expect(odcsProblems(contract)).toEqual([]);
    expect(contract.schema?.[0]?.customProperties).toContainEqual(expect.objectContaining({ property: "derivedStatement", value: STATEMENT }));
    const { items } = await planContracts(db, ctx.as.ordersOwner, files(contract));
    expect(items[0]).toMatchObject({ action: "no-change", errors: [], changes: [], topic: "orders.order-status-per-minute.v1" });
    const reformatted = setStatement(contract, `${STATEMENT.replace(/\n/g, "\r\n")};\n`);
    expect((await planContracts(db, ctx.as.ordersOwner, files(reformatted))).items[0]).toMatchObject({ action: "no-change", errors: [] });
    // A product that is not derived exports none.
    expect((await exported(inputId)).schema?.[0]?.customProperties?.map((p) => p.property)).not.toContain("derivedStatement");
  });

  it("a changed statement of an ACTIVE product plans as an update (a new statement version, the file's schema not compared); applied without Flink it is refused 503 as the form's change is, changing nothing; not ACTIVE, refused on plan", async () => {
    const contract = await exported(derivedId);
    const changedStatement = STATEMENT.replace("INTERVAL '1' MINUTE", "INTERVAL '5' MINUTE");
    // The exported schema stays in the file, and another one would not be compared either: Flink derives the new one.
    const changed = setStatement({ ...setSchema(contract, { type: "object", properties: { other: { type: "string" } } }), description: { purpose: "Status changes per five minutes." } }, changedStatement);
    const before = await state();
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(changed))).items[0];
    expect(plan).toMatchObject({ action: "update", productId: derivedId, errors: [], schema: { change: "none" } });
    expect(plan?.changes).toContainEqual({ field: "derivedStatement", from: STATEMENT, to: changedStatement });
    expect(plan?.changes.map((c) => c.field)).not.toContain("schema");
    expect(plan?.notes).toContainEqual(expect.stringMatching(/^A new version of the statement: applying asks for it as the product page's "Change statement" does — Flink plans it/));
    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(changed))).items[0];
    expect(applied).toMatchObject({ applied: false, refusal: { code: "NOT_CONFIGURED", message: expect.stringContaining("FLINK_SQL_GATEWAY_URL") } });
    // Not even the description changed: the statement goes first, and its refusal leaves the file unapplied.
    expect(await state()).toEqual(before);

    await db.dataProduct.update({ where: { id: derivedId }, data: { status: "DEPRECATED" } });
    try {
      const deprecated = (await planContracts(db, ctx.as.ordersOwner, files(changed))).items[0];
      expect(deprecated).toMatchObject({ action: "error" });
      expect(deprecated?.errors).toEqual([expect.stringMatching(/only an ACTIVE derived product's statement changes .*; orders\.order-status-per-minute\.v1 is DEPRECATED/)]);
    } finally {
      await db.dataProduct.update({ where: { id: derivedId }, data: { status: "ACTIVE" } });
    }
  });

  it("a statement removed from a derived product, or added to a plain one, is refused naming the field", async () => {
    const removed = setStatement(await exported(derivedId), undefined);
    const plan = (await planContracts(db, ctx.as.ordersOwner, files(removed))).items[0];
    expect(plan).toMatchObject({ action: "error", changes: [{ field: "derivedStatement", from: STATEMENT, to: null }] });
    expect(plan?.errors[0]).toMatch(/^schema\[0\]\.customProperties\.derivedStatement: orders\.order-status-per-minute\.v1 is a derived product, computed by its Flink SQL statement; keep the statement in the file/);
    const before = await state();
    expect((await applyContracts(db, ctx.as.ordersOwner, files(removed))).items[0]).toMatchObject({ applied: false, refusal: { code: "VALIDATION_FAILED" } });
    expect(await state()).toEqual(before);

    const input = await exported(inputId);
    const added: OdcsContract = { ...input, schema: input.schema?.map((o) => ({ ...o, customProperties: [...(o.customProperties ?? []), { property: "derivedStatement", value: "SELECT 1" }] })) };
    const addedPlan = (await planContracts(db, ctx.as.ordersOwner, files(added))).items[0];
    expect(addedPlan).toMatchObject({ action: "error", changes: [{ field: "derivedStatement", from: null, to: "SELECT 1" }] });
    expect(addedPlan?.errors[0]).toMatch(/^schema\[0\]\.customProperties\.derivedStatement: orders\.order-status\.v1 is not a derived product, so it takes no statement/);
    expect((await applyContracts(db, ctx.as.ordersOwner, files(added))).items[0]).toMatchObject({ applied: false });
    expect(await db.derivedProduct.count({ where: { productId: inputId } })).toBe(0);

    // A new product declared by a file: not yet (Flink plans it on registration).
    const fresh = setStatement({ ...(await exported(derivedId)), id: "orders.status-per-hour", name: "Status per Hour", dataProduct: "Status per Hour" }, STATEMENT.replace("'1' MINUTE", "'1' HOUR"));
    const create = (await applyContracts(db, ctx.as.ordersOwner, files(fresh))).items[0];
    expect(create).toMatchObject({ action: "error", applied: false });
    expect(create?.errors[0]).toMatch(/^schema\[0\]\.customProperties\.derivedStatement: declaring a derived product from a contract file is not supported yet/);
    expect(await db.dataProduct.count({ where: { slug: "status-per-hour" } })).toBe(0);
  });

  it("with the same statement: its metadata applies as for any product; its schema (Flink's) and topic settings do not change", async () => {
    const contract = await exported(derivedId);
    const otherSchema = setSchema(contract, { ...flinkSchema, properties: { ...flinkSchema.properties, extra: { type: "string" } } });
    const schemaPlan = (await planContracts(db, ctx.as.ordersOwner, files(otherSchema))).items[0];
    expect(schemaPlan).toMatchObject({ action: "error" });
    expect(schemaPlan?.errors).toEqual([expect.stringMatching(/^schema\[0\]\.customProperties\.schema: the schema of orders\.order-status-per-minute\.v1 is the one Flink derives from its statement/)]);
    const partitions = (await planContracts(db, ctx.as.ordersOwner, files(setCustom(contract, "partitions", 12)))).items[0];
    expect(partitions).toMatchObject({ action: "error", changes: [{ field: "partitions", from: 6, to: 12 }] });
    expect(partitions?.errors[0]).toMatch(/^partitions cannot change on orders\.order-status-per-minute\.v1, and a new major version of a derived product is not supported yet/);
    const before = await state();
    expect((await applyContracts(db, ctx.as.ordersOwner, { ...files(setCustom(contract, "partitions", 12)), allowNewMajorVersion: true })).items[0]).toMatchObject({ applied: false });
    expect(await state()).toEqual(before);

    const described: OdcsContract = { ...contract, description: { purpose: "Order status changes per minute, by status." }, tags: ["orders", "flink"] };
    const applied = (await applyContracts(db, ctx.as.ordersOwner, files(described))).items[0];
    expect(applied).toMatchObject({ action: "update", applied: true });
    const after = await state();
    expect(after.product).toMatchObject({ description: "Order status changes per minute, by status.", tags: ["orders", "flink"], status: "ACTIVE" });
    expect(after.derived).toEqual(before.derived);
    expect((await planContracts(db, ctx.as.ordersOwner, files(await exported(derivedId)))).items[0]).toMatchObject({ action: "no-change" });
  });
});

