import { describe, expect, it } from "vitest";
import { fieldErrors, registerProductInput, requestSubscriptionInput, updateProductInput } from "./validation.ts";

const avro = JSON.stringify({ type: "record", name: "E", fields: [{ name: "id", type: "string" }] });
const valid = {
  domainId: "d1",
  name: "Order Events",
  description: "Every order placed, as it happens.",
  classification: "INTERNAL",
  tags: ["orders"],
  freshnessSeconds: 60,
  availabilityPct: 99.9,
  partitions: 6,
  contactEmail: "owner@orders.example",
  schema: { format: "AVRO", definition: avro },
};

function errorsOf(input: unknown) {
  const result = registerProductInput.safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
}

describe("product input", () => {
  it("accepts a complete product and applies the Kappa defaults", () => {
    const parsed = registerProductInput.parse(valid);
    expect(parsed.retentionMs).toBe(-1);
    expect(parsed.cleanupPolicy).toBe("delete");
    expect(parsed.tieredStorage).toBe(false);
    expect(parsed.localRetentionMs).toBe(-2);
  });

  it("names each bad field", () => {
    const errors = errorsOf({ ...valid, name: "x", partitions: 0, availabilityPct: 101, contactEmail: "nope", classification: "SECRET" });
    expect(Object.keys(errors).sort()).toEqual(["availabilityPct", "classification", "contactEmail", "name", "partitions"]);
    expect(errors.partitions?.[0]).toBe("At least 1 partition.");
  });

  it("bounds retention: forever or at least an hour", () => {
    expect(errorsOf({ ...valid, retentionMs: -1 })).toEqual({});
    expect(errorsOf({ ...valid, retentionMs: 3_600_000 })).toEqual({});
    expect(errorsOf({ ...valid, retentionMs: 1000 }).retentionMs?.[0]).toMatch(/at least one hour/);
  });

  it("refuses tiered storage on compacted topics and hot windows longer than retention", () => {
    expect(errorsOf({ ...valid, cleanupPolicy: "compact", tieredStorage: true }).tieredStorage?.[0]).toMatch(/not available for compacted/);
    expect(errorsOf({ ...valid, retentionMs: 3_600_000, tieredStorage: true, localRetentionMs: 7_200_000 }).localRetentionMs?.[0]).toMatch(/cannot be longer/);
    expect(errorsOf({ ...valid, tieredStorage: true, localRetentionMs: 600_000 })).toEqual({});
  });

  it("validates the schema by its format", () => {
    expect(errorsOf({ ...valid, schema: { format: "AVRO", definition: "{not json" } })["schema.definition"]?.[0]).toMatch(/not valid JSON/);
    expect(errorsOf({ ...valid, schema: { format: "AVRO", definition: '{"type":"record","name":"E","fields":[{"name":"a","type":"strng"}]}' } })["schema.definition"]?.[0]).toMatch(/Invalid Avro schema/);
    expect(errorsOf({ ...valid, schema: { format: "AVRO", definition: '"string"' } })["schema.definition"]?.[0]).toMatch(/must be a record/);
    expect(errorsOf({ ...valid, schema: { format: "JSON_SCHEMA", definition: '{"type":"object"}' } })).toEqual({});
    expect(errorsOf({ ...valid, schema: { format: "JSON_SCHEMA", definition: '{"type":"objekt"}' } })["schema.definition"]?.[0]).toBe(
      "Invalid JSON Schema: `type` must be one of array, boolean, integer, null, number, object, string.",
    );
    // One line per place in the schema, not every branch the meta-schema tried.
    expect(
      errorsOf({ ...valid, schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object", required: "id", properties: { id: { type: "string", minLength: -1 } } }) } })["schema.definition"]?.[0],
    ).toBe("Invalid JSON Schema: `required` must be array; `properties.id.minLength` must be >= 0.");
    expect(errorsOf({ ...valid, schema: { format: "JSON_SCHEMA", definition: "  " } })["schema.definition"]?.[0]).toBe("Paste or upload a schema.");
  });

  it("normalises and checks tags", () => {
    expect(registerProductInput.parse({ ...valid, tags: [" Orders ", "core"] }).tags).toEqual(["orders", "core"]);
    expect(errorsOf({ ...valid, tags: ["a", "a"] }).tags?.[0]).toBe("Tags must be unique.");
    expect(errorsOf({ ...valid, tags: ["no spaces"] })["tags.0"]?.[0]).toMatch(/lower-case/);
  });

  it("checks cross-field rules on partial updates too", () => {
    expect(updateProductInput.safeParse({ cleanupPolicy: "compact", tieredStorage: true }).success).toBe(false);
    expect(updateProductInput.safeParse({ description: "A better description." }).success).toBe(true);
  });

  it("requires a purpose for subscriptions", () => {
    const result = requestSubscriptionInput.safeParse({ productId: "p", serviceAccountId: "s", purpose: "short" });
    expect(result.success).toBe(false);
    if (!result.success) expect(fieldErrors(result.error).purpose?.[0]).toMatch(/at least 10/);
  });
});

describe("JSON Schema drafts", () => {
  const withDraft = (draft: string) => errorsOf({ ...valid, schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ $schema: draft, type: "object" }) } });
  it("accepts draft-07, 2019-09 and 2020-12 and names unsupported drafts", () => {
    expect(withDraft("http://json-schema.org/draft-07/schema#")).toEqual({});
    expect(withDraft("https://json-schema.org/draft/2019-09/schema")).toEqual({});
    expect(withDraft("https://json-schema.org/draft/2020-12/schema")).toEqual({});
    expect(withDraft("http://json-schema.org/draft-04/schema#")["schema.definition"]?.[0]).toMatch(/Unsupported JSON Schema draft/);
  });
});
