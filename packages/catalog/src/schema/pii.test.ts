import { describe, expect, it } from "vitest";
import { schemaDefinitionProblem } from "../schema-definition.ts";
import { piiFieldPaths } from "./pii.ts";

describe("PII tags in Avro schemas", () => {
  const schema = {
    type: "record",
    name: "Order",
    namespace: "orders",
    fields: [
      { name: "orderId", type: "string" },
      { name: "email", type: "string", pii: true },
      { name: "customer", type: { type: "record", name: "Customer", fields: [{ name: "phone", type: ["null", "string"], pii: true }, { name: "tier", type: "string" }] } },
      { name: "lines", type: { type: "array", items: { type: "record", name: "Line", fields: [{ name: "note", type: "string", pii: true }] } } },
      { name: "attributes", type: { type: "map", values: { type: "record", name: "Attr", fields: [{ name: "ip", type: "string", pii: true }] } } },
      { name: "billing", type: ["null", "Customer"] },
      { name: "flagged", type: "boolean", pii: false },
    ],
  };

  it("finds tagged fields at every depth, through unions, arrays, maps and named references", () => {
    expect(piiFieldPaths("AVRO", JSON.stringify(schema))).toEqual(["attributes{}.ip", "billing.phone", "customer.phone", "email", "lines[].note"]);
  });

  it("keeps tagged schemas valid Avro", () => {
    expect(schemaDefinitionProblem("AVRO", JSON.stringify(schema))).toBeNull();
  });

  it("terminates on recursive types and finds nothing in an untagged or unparsable schema", () => {
    const tree = { type: "record", name: "Node", fields: [{ name: "label", type: "string", pii: true }, { name: "children", type: { type: "array", items: "Node" } }] };
    expect(piiFieldPaths("AVRO", tree)).toEqual(["children[].label", "label"]);
    expect(piiFieldPaths("AVRO", { type: "record", name: "R", fields: [{ name: "a", type: "int" }] })).toEqual([]);
    expect(piiFieldPaths("AVRO", "{not json")).toEqual([]);
  });
});

describe("PII tags in JSON Schemas", () => {
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      orderId: { type: "string" },
      email: { type: "string", "x-pii": true },
      customer: { $ref: "#/$defs/customer" },
      lines: { type: "array", items: { type: "object", properties: { note: { type: "string", "x-pii": true } } } },
      extra: { type: "object", additionalProperties: { type: "object", properties: { ip: { type: "string", "x-pii": true } } } },
      either: { oneOf: [{ type: "object", properties: { ssn: { type: "string", "x-pii": true } } }, { type: "null" }] },
    },
    $defs: { customer: { type: "object", properties: { phone: { type: "string", "x-pii": true }, self: { $ref: "#/$defs/customer" } } } },
  };

  it("finds tagged properties through $ref, items, additionalProperties and combinators", () => {
    expect(piiFieldPaths("JSON_SCHEMA", JSON.stringify(schema))).toEqual(["customer.phone", "customer.self.phone", "either.ssn", "email", "extra{}.ip", "lines[].note"]);
  });

  it("keeps tagged schemas valid JSON Schema", () => {
    expect(schemaDefinitionProblem("JSON_SCHEMA", JSON.stringify(schema))).toBeNull();
  });
});
