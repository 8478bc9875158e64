import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { avscType } from "./avro-resolver.ts";
import { exampleValueSource } from "./example-value.ts";

/** Evaluates the snippet's source as a producer would run it. */
function evaluate(source: string): unknown {
  return new Function("Buffer", "crypto", `return (${source});`)(Buffer, globalThis.crypto);
}

describe("example values for snippets", () => {
  it("an Avro example is a valid record of the schema (nested records, unions, enums, logical types, bytes, fixed)", () => {
    const definition = JSON.stringify({
      type: "record",
      name: "Order",
      fields: [
        { name: "orderId", type: { type: "string", logicalType: "uuid" } },
        { name: "placedAt", type: { type: "long", logicalType: "timestamp-millis" } },
        { name: "total", type: "double" },
        { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"] } },
        { name: "note", type: ["null", "string"], default: null },
        { name: "customer", type: { type: "record", name: "Customer", fields: [{ name: "email", type: "string" }, { name: "vip", type: "boolean" }] } },
        { name: "lines", type: { type: "array", items: "string" } },
        { name: "attributes", type: { type: "map", values: "int" } },
        { name: "hash", type: { type: "fixed", name: "Hash", size: 4 } },
        { name: "raw", type: "bytes" },
        { name: "next", type: ["null", "Order"], default: null },
      ],
    });
    const value = evaluate(exampleValueSource("AVRO", definition));
    expect(avscType(definition).toBuffer(value).length).toBeGreaterThan(0);
    expect(value).toMatchObject({ status: "NEW", note: null, customer: { vip: false } });
  });

  it("a JSON Schema example passes the schema's validation", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      required: ["orderId", "status", "qty"],
      properties: { orderId: { type: "string" }, status: { enum: ["PLACED", "PAID"] }, qty: { type: "integer", minimum: 1 }, tags: { type: "array", items: { type: "string" } } },
    };
    const value = evaluate(exampleValueSource("JSON_SCHEMA", JSON.stringify(schema)));
    expect(new Ajv2020({ strict: false }).validate(schema, value)).toBe(true);
  });
});
