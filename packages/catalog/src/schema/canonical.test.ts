import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalSchema, normalizedSchema, schemaFingerprint, schemaIdentity } from "./canonical.ts";

const order = {
  type: "record",
  name: "Order",
  namespace: "com.example",
  doc: "An order",
  fields: [
    { name: "id", type: { type: "string" }, doc: "Its id", default: "none" },
    { name: "at", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"], default: "NEW" } },
    { name: "previous", type: ["null", "Order"], default: null },
  ],
};

describe("Avro Parsing Canonical Form", () => {
  it("applies the specification's transformations", () => {
    // [PRIMITIVES] {"type":"string"} → "string"; [FULLNAMES]; [STRIP] doc, default, logicalType;
    // [ORDER] name, type, fields, symbols; a named type's second use is its full name.
    expect(canonicalSchema("AVRO", JSON.stringify(order))).toBe(
      '{"name":"com.example.Order","type":"record","fields":[{"name":"id","type":"string"},{"name":"at","type":"long"},' +
        '{"name":"status","type":{"name":"com.example.Status","type":"enum","symbols":["NEW","PAID"]}},{"name":"previous","type":["null","com.example.Order"]}]}',
    );
  });

  it("is the same for whitespace, key order, docs and defaults; the fingerprint is its SHA-256", () => {
    const reordered = JSON.stringify({ ...order, doc: "Changed", fields: order.fields.map((f) => ({ ...f, doc: "x" })) }, null, 2);
    expect(canonicalSchema("AVRO", reordered)).toBe(canonicalSchema("AVRO", JSON.stringify(order)));
    expect(schemaFingerprint("AVRO", reordered)).toBe(schemaFingerprint("AVRO", JSON.stringify(order)));
    expect(schemaFingerprint("AVRO", JSON.stringify(order))).toBe(createHash("sha256").update(canonicalSchema("AVRO", JSON.stringify(order))).digest("hex"));
  });
});

describe("normalized schema and identity", () => {
  it("ignores whitespace and key order but not docs or defaults", () => {
    const a = '{"type":"record","name":"E","fields":[{"name":"id","type":"string"}]}';
    const b = '{\n  "fields": [{"type": "string", "name": "id"}],\n  "name": "E",\n  "type": "record"\n}';
    const c = '{"type":"record","name":"E","fields":[{"name":"id","type":"string","default":""}]}';
    expect(normalizedSchema(a)).toBe(normalizedSchema(b));
    expect(schemaIdentity("AVRO", a)).toBe(schemaIdentity("AVRO", b));
    expect(schemaIdentity("AVRO", a)).not.toBe(schemaIdentity("AVRO", c));
    expect(schemaIdentity("AVRO", a)).not.toBe(schemaIdentity("JSON_SCHEMA", a));
    // Same wire form, different schema: the fingerprint stays, the identity changes.
    expect(schemaFingerprint("AVRO", a)).toBe(schemaFingerprint("AVRO", c));
  });

  it("JSON Schema's canonical form sorts keys at every level and keeps array order", () => {
    expect(canonicalSchema("JSON_SCHEMA", '{"type":"object","properties":{"b":{"type":"string"},"a":{"enum":[2,1]}}}')).toBe(
      '{"properties":{"a":{"enum":[2,1]},"b":{"type":"string"}},"type":"object"}',
    );
  });
});
