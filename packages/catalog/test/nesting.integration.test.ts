import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  checkSchemaVersion,
  jsonTextDepth,
  loadActor,
  planContracts,
  proposeSchemaVersion,
  readContractText,
  registerProduct,
  submitForReview,
  valueDepth,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 10: a JSON Schema nested 1,000 levels answered 500 (Ajv's
 * stack), and schemas nested 600 (JSON) or 1,000 (Avro) levels were stored
 * and then broke the YAML export. Nesting is bounded (64) before any parser
 * or validator walks the text.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

/** A JSON Schema whose properties nest `levels` objects deep (two JSON levels each). */
function deepJsonSchema(levels: number): string {
  let inner: unknown = { type: "string" };
  for (let i = 0; i < levels; i++) inner = { type: "object", properties: { a: inner } };
  return JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", ...(inner as object) });
}

/** An Avro record with records nested `levels` deep. */
function deepAvro(levels: number): string {
  let inner: unknown = "string";
  for (let i = levels; i > 0; i--) inner = { type: "record", name: `R${i}`, fields: [{ name: "a", type: inner }] };
  return JSON.stringify({ type: "record", name: "Top", fields: [{ name: "a", type: inner }] });
}

const tooDeep = { status: 400, fields: { "schema.definition": [expect.stringContaining("nested more than 64 levels")] } };

describe("nesting limit", () => {
  it("counts nesting without parsing, strings skipped", () => {
    expect(jsonTextDepth('{"a":[1,{"b":"[[[{{{"}]}')).toBe(3);
    expect(jsonTextDepth('"\\"[[["')).toBe(0);
    expect(valueDepth({ a: [{ b: 1 }] })).toBe(3);
  });

  it("refuses a JSON Schema nested 1,000 levels (was a 500) and one nested 300 (600 JSON levels, was stored), naming the field", async () => {
    for (const levels of [1000, 300]) {
      await expect(
        registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: `Deep Json ${levels}`, schema: { format: "JSON_SCHEMA", definition: deepJsonSchema(levels) } })),
      ).rejects.toMatchObject(tooDeep);
    }
    expect(await db.dataProduct.count()).toBe(0);
  });

  it("refuses an Avro schema nested 1,000 records deep, and accepts a realistic nesting", async () => {
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Deep Avro", schema: { format: "AVRO", definition: deepAvro(1000) } }))).rejects.toMatchObject(
      tooDeep,
    );
    const fine = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Nested Avro", schema: { format: "AVRO", definition: deepAvro(10) } }));
    expect(fine.status).toBe("DRAFT");
  });

  it("refuses a deep schema version, in the dry run and the proposal", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Evolving" }));
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
    const deep = deepAvro(1000);
    await expect(proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: deep })).rejects.toMatchObject({ status: 400 });
    const check = await checkSchemaVersion(db, await loadActor(db, ctx.people.ordersOwner.id), product.id, { definition: deep }).catch((e: unknown) => e);
    expect(JSON.stringify(check)).toContain("nested more than 64 levels");
    expect(await db.schemaVersion.count({ where: { productId: product.id } })).toBe(1);
  });

  it("refuses a contract nested deeper than 64 levels before mapping it", async () => {
    const deep = `apiVersion: v3.1.0\nkind: DataContract\nx: ${"[".repeat(100)}${"]".repeat(100)}\n`;
    expect(() => readContractText(deep)).toThrow(/nested more than 64 levels/);
    const { items } = await planContracts(db, ctx.as.ordersOwner, { contracts: [{ content: deep, source: "deep.yaml" }] });
    expect(JSON.stringify(items[0])).toContain("nested more than 64 levels");
  });
});
