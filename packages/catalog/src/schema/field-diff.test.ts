import { describe, expect, it } from "vitest";
import { diffSchemaFields } from "./field-diff.ts";

const avro = (fields: unknown[]) => JSON.stringify({ type: "record", name: "Order", fields });

describe("field-level diff", () => {
  it("lists added, removed, renamed and changed Avro fields in the newer order", () => {
    const older = avro([
      { name: "id", type: "string" },
      { name: "amount", type: "int" },
      { name: "note", type: "string", doc: "free text" },
      { name: "legacy", type: "string" },
      { name: "customer", type: { type: "record", name: "Customer", fields: [{ name: "email", type: "string" }] } },
    ]);
    const newer = avro([
      { name: "id", type: "string" },
      { name: "amountCents", type: "long", aliases: ["amount"] },
      { name: "note", type: "string", doc: "Free text from the buyer", default: "" },
      { name: "customer", type: { type: "record", name: "Customer", fields: [{ name: "email", type: "string", pii: true }, { name: "phone", type: ["null", "string"], default: null }] } },
    ]);
    const rows = diffSchemaFields("AVRO", older, newer).map((r) => [r.path, r.change, r.aspects.join("+"), r.renamedFrom ?? ""]);
    expect(rows).toEqual([
      ["id", "unchanged", "", ""],
      ["amountCents", "renamed", "type+aliases", "amount"],
      ["note", "changed", "default+doc", ""],
      ["legacy", "removed", "", ""],
      ["customer", "unchanged", "", ""],
      ["customer.email", "changed", "pii", ""],
      ["customer.phone", "added", "", ""],
    ]);
    const note = diffSchemaFields("AVRO", older, newer).find((r) => r.path === "note");
    expect(note?.before).toEqual({ type: "string", doc: "free text" });
    expect(note?.after).toEqual({ type: "string", doc: "Free text from the buyer", default: '""' });
  });

  it("follows JSON Schema properties, required and nested objects", () => {
    const older = JSON.stringify({ type: "object", properties: { id: { type: "string" }, status: { enum: ["NEW", "PAID"] } }, required: ["id"] });
    const newer = JSON.stringify({
      type: "object",
      properties: { id: { type: "string" }, status: { enum: ["NEW", "PAID", "REFUNDED"] }, buyer: { type: "object", properties: { email: { type: "string", "x-pii": true } } } },
      required: ["id", "status"],
    });
    expect(diffSchemaFields("JSON_SCHEMA", older, newer).map((r) => [r.path, r.change, r.aspects.join("+")])).toEqual([
      ["id", "unchanged", ""],
      ["status", "changed", "type+required"],
      ["buyer", "added", ""],
      ["buyer.email", "added", ""],
    ]);
    expect(diffSchemaFields("JSON_SCHEMA", older, newer)[1]?.after?.type).toBe('enum ["NEW", "PAID", "REFUNDED"]');
  });
});
