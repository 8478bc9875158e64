import { describe, expect, it } from "vitest";
import { inferSchemaFromSamples, JSON_SCHEMA_DRAFT_2020_12, type SampleValue } from "./infer.ts";

const json = (value: unknown, timestamp = 0): SampleValue => ({ value: Buffer.from(JSON.stringify(value)), timestamp });
const framed = (id: number, body: Buffer, timestamp = 0): SampleValue => {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(id, 1);
  return { value: Buffer.concat([header, body]), timestamp };
};
const noRegistry = async () => null;

describe("schema inference from sample records", () => {
  it("describes JSON objects as a draft 2020-12 schema: merged properties, required where always present, widened types", async () => {
    const result = await inferSchemaFromSamples(
      [
        json({ orderId: "o-1", amount: 10, placedAt: "2026-11-30T10:00:00Z", lines: [{ sku: "a", qty: 1 }], note: null }),
        json({ orderId: "o-2", amount: 12.5, placedAt: "2026-11-30T10:01:00.123+01:00", lines: [], coupon: "XMAS" }),
      ],
      "legacy.orders",
      noRegistry,
    );
    expect(result).toMatchObject({ inferred: true, format: "JSON_SCHEMA", sampled: 2, registrySchemaId: null });
    if (!result.inferred) throw new Error("not inferred");
    const schema = JSON.parse(result.definition) as Record<string, unknown>;
    expect(schema).toEqual({
      $schema: JSON_SCHEMA_DRAFT_2020_12,
      title: "legacy.orders",
      type: "object",
      properties: {
        amount: { type: "number" },
        coupon: { type: "string" },
        lines: { type: "array", items: { type: "object", properties: { qty: { type: "integer" }, sku: { type: "string" } }, required: ["qty", "sku"] } },
        note: { type: "null" },
        orderId: { type: "string" },
        placedAt: { type: "string", format: "date-time" },
      },
      required: ["amount", "lines", "orderId", "placedAt"],
    });
  });

  it("takes the registry's schema for Confluent-framed values, the newest record's id winning", async () => {
    const avro = JSON.stringify({ type: "record", name: "Scan", fields: [{ name: "id", type: "string" }] });
    const lookup = async (id: number) => (id === 7 ? { format: "AVRO" as const, definition: avro } : null);
    const result = await inferSchemaFromSamples([framed(3, Buffer.from([2, 65]), 1), framed(7, Buffer.from([2, 66]), 5)], "scans", lookup);
    expect(result).toMatchObject({ inferred: true, format: "AVRO", registrySchemaId: 7, explanation: expect.stringContaining("Older records also carry id 3") });
    if (result.inferred) expect(JSON.parse(result.definition)).toEqual(JSON.parse(avro));
    const unknown = await inferSchemaFromSamples([framed(99, Buffer.from([2, 65]))], "scans", lookup);
    expect(unknown).toMatchObject({ inferred: false, explanation: expect.stringContaining("schema id 99") });
  });

  it("explains what cannot be inferred: no records, tombstones only, binary, mixed encodings, non-objects", async () => {
    expect(await inferSchemaFromSamples([], "t", noRegistry)).toMatchObject({ inferred: false, explanation: expect.stringContaining("no records") });
    expect(await inferSchemaFromSamples([{ value: null, timestamp: 0 }], "t", noRegistry)).toMatchObject({ inferred: false, explanation: expect.stringContaining("tombstones") });
    // Plain Avro binary: not JSON, no schema id.
    expect(await inferSchemaFromSamples([{ value: Buffer.from([0x0a, 0x6f, 0x2d, 0x31, 0xff]), timestamp: 0 }], "t", noRegistry)).toMatchObject({ inferred: false, explanation: expect.stringContaining("not JSON and carry no schema id") });
    expect(await inferSchemaFromSamples([json({ a: 1 }), framed(1, Buffer.from([1]))], "t", noRegistry)).toMatchObject({ inferred: false, explanation: expect.stringContaining("mixed encodings") });
    expect(await inferSchemaFromSamples([json([1, 2])], "t", noRegistry)).toMatchObject({ inferred: false, explanation: expect.stringContaining("not objects") });
  });

  it("stays bounded on hostile input: deep nesting is cut off, not recursed into", async () => {
    const deep = '{"d":'.repeat(5_000) + "1" + "}".repeat(5_000);
    const result = await inferSchemaFromSamples([{ value: Buffer.from(deep), timestamp: 0 }], "t", noRegistry);
    expect(result.inferred).toBe(true);
  });

  it("describes map-like objects as maps: keys that are data (e-mails) never come back as field names (issue 30, finding 5)", async () => {
    const emails = ["alice@example.com", "bob@example.com", "carol@example.org", "dave@example.net"];
    const result = await inferSchemaFromSamples(
      emails.map((e, i) => json({ kind: "balances", byCustomer: { [e]: { balance: i, currency: "EUR" } }, byId: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`k${i * 10 + k}`, k])) })),
      "legacy.balances",
      noRegistry,
    );
    expect(result.inferred).toBe(true);
    const definition = result.inferred ? result.definition : "";
    for (const e of emails) expect(definition).not.toContain(e);
    const schema = JSON.parse(definition) as { properties: Record<string, { additionalProperties?: unknown; properties?: unknown }> };
    expect(Object.keys(schema.properties).sort()).toEqual(["byCustomer", "byId", "kind"]);
    expect(schema.properties.byCustomer).toEqual({
      type: "object",
      additionalProperties: { type: "object", properties: { balance: { type: "integer" }, currency: { type: "string" } }, required: ["balance", "currency"] },
    });
    // Many distinct keys, rarely shared, uniform values: a map, whatever the keys look like.
    expect(schema.properties.byId).toEqual({ type: "object", additionalProperties: { type: "integer" } });
    expect(definition).not.toMatch(/"k\d+"/);
    // A record with a few fixed fields stays a record.
    const fixed = await inferSchemaFromSamples([json({ a: 1, b: "x" }), json({ a: 2, b: "y" })], "t", noRegistry);
    expect(fixed.inferred && JSON.parse(fixed.definition)).toMatchObject({ properties: { a: { type: "integer" }, b: { type: "string" } }, required: ["a", "b"] });
  });
});
