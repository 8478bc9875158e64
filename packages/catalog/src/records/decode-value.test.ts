/// <reference path="../avsc-types.d.ts" />
import avroTypes from "avsc/lib/types.js";
import { describe, expect, it } from "vitest";
import { decodeValue, type ValueContext } from "./decode-value.ts";

const customer = {
  type: "record",
  name: "Customer",
  namespace: "shop",
  fields: [
    { name: "id", type: "string" },
    { name: "email", type: "string", pii: true },
    { name: "referredBy", type: ["null", "Customer"], default: null },
    { name: "phones", type: { type: "map", values: { type: "record", name: "Phone", fields: [{ name: "number", type: "string", pii: true }, { name: "kind", type: "string" }] } } },
    { name: "balanceCents", type: "long" },
  ],
};
const definition = JSON.stringify(customer);
const type = avroTypes.Type.forSchema(customer);
const value = {
  id: "c1",
  email: "ann@example.com",
  referredBy: { id: "c0", email: "bob@example.com", referredBy: null, phones: {}, balanceCents: 0 },
  phones: { home: { number: "+41 44 000", kind: "landline" } },
  balanceCents: 1_234_500,
};

const ctx = (over: Partial<ValueContext> = {}): ValueContext => ({
  format: "AVRO",
  versions: [{ version: 2, definition }],
  piiVisible: false,
  maskedPaths: new Set(),
  hasSensitiveFields: true,
  ...over,
});

function framed(schemaId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, payload]);
}

describe("decodeValue (Avro)", () => {
  it("masks PII at every depth of a recursive type, inside maps and unions", () => {
    // avsc writes longs from numbers; this one is above 2^53 only as a string in JSON.
    const bytes = avroTypes.Type.forSchema({ ...customer, fields: customer.fields.map((f) => (f.name === "balanceCents" ? { ...f, type: "long" } : f)) }).toBuffer({ ...value, balanceCents: 42 });
    const out = decodeValue(bytes, ctx());
    expect(out).toMatchObject({ encoding: "avro", wire: "plain", schemaVersion: 2, undecodable: null });
    expect(out.value).toEqual({
      id: "c1",
      email: "[masked]",
      referredBy: { id: "c0", email: "[masked]", referredBy: null, phones: {}, balanceCents: 0 },
      phones: { home: { number: "[masked]", kind: "landline" } },
      balanceCents: 42,
    });
    expect(out.masked).toEqual(["email", "phones{}.number", "referredBy.email"]);
    expect(decodeValue(bytes, ctx({ piiVisible: true })).value).toMatchObject({ email: "ann@example.com", referredBy: { email: "bob@example.com" } });
  });

  it("reads the Confluent wire format, and says when the schema id is unknown", () => {
    const bytes = framed(17, type.toBuffer({ ...value, balanceCents: 7 }));
    const out = decodeValue(bytes, ctx());
    expect(out).toMatchObject({ wire: "confluent", schemaId: 17, schemaVersion: 2 });
    expect(out.note).toContain("Schema id 17 is not one of this product's registered versions");
    const known = decodeValue(bytes, ctx({ resolveSchemaId: (id) => (id === 17 ? { version: 1, definition } : null) }));
    expect(known).toMatchObject({ schemaVersion: 1, note: null });
  });

  it("applies the product's masking list to untagged fields", () => {
    const bytes = type.toBuffer({ ...value, balanceCents: 1 });
    expect(decodeValue(bytes, ctx({ maskedPaths: new Set(["id", "phones{}.kind"]) })).value).toMatchObject({ id: "[masked]", phones: { home: { kind: "[masked]" } } });
  });

  it("shows undecodable bytes escaped and as hex with the reason; withholds them from viewers without PII access", () => {
    const junk = Buffer.from([0x7b, 0x3c, 0x62, 0x3e, 0x0a, 0xff, 0x5c]);
    const owner = decodeValue(junk, ctx({ piiVisible: true }));
    expect(owner.encoding).toBe("raw");
    expect(owner.undecodable?.reason).toMatch(/Does not decode with the product's Avro schema/);
    expect(owner.undecodable?.raw).toEqual({ bytes: 7, hex: "7b3c623e0aff5c", escaped: "{<b>\\n\\xff\\\\", truncated: false });
    const subscriber = decodeValue(junk, ctx());
    expect(subscriber.undecodable).toMatchObject({ raw: null, rawWithheld: true });
    expect(decodeValue(junk, ctx({ hasSensitiveFields: false })).undecodable?.raw?.hex).toBe("7b3c623e0aff5c");
  });

  it("null values are tombstones", () => {
    expect(decodeValue(null, ctx())).toMatchObject({ encoding: "null", value: null });
  });
});

describe("decodeValue (JSON Schema)", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", "x-pii": true },
      children: { type: "array", items: { $ref: "#" } },
      tags: { type: "object", additionalProperties: { type: "string" } },
    },
  };
  const jc = (over: Partial<ValueContext> = {}) => ctx({ format: "JSON_SCHEMA", versions: [{ version: 1, definition: JSON.stringify(schema) }], ...over });
  const doc = { name: "Ann", children: [{ name: "Bo", children: [{ name: "Cy", children: [] }] }], tags: { a: "x" }, extra: 1 };

  it("masks along $ref recursion, plain or framed", () => {
    const plain = decodeValue(Buffer.from(JSON.stringify(doc)), jc());
    expect(plain.value).toEqual({ name: "[masked]", children: [{ name: "[masked]", children: [{ name: "[masked]", children: [] }] }], tags: { a: "x" }, extra: 1 });
    expect(plain.masked).toEqual(["children[].children[].name", "children[].name", "name"]);
    const framedJson = decodeValue(framed(3, Buffer.from(JSON.stringify(doc))), jc({ piiVisible: true }));
    expect(framedJson).toMatchObject({ wire: "confluent", schemaId: 3, value: { name: "Ann" } });
  });

  it("refuses text that is not JSON", () => {
    expect(decodeValue(Buffer.from("not json"), jc({ piiVisible: true })).undecodable?.raw?.escaped).toBe("not json");
  });
});
