import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createApiTokenInput } from "./actions/create-api-token.ts";
import { auditQueryInput, cleanString, fieldErrors, LIMITS, longText, registerProductInput, rejectQuotaClassInput, requestSubscriptionInput, text, textPattern, updateProductInput } from "./validation.ts";

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

describe("what the API document forbids, the handlers refuse (issue 30, finding 18)", () => {
  it("maxLength holds for the text as sent, not only once trimmed", async () => {
    const { publishMajorVersionInput, reasonInput } = await import("./validation.ts");
    // 80 is the documented maxLength; 82 characters used to pass because the bound applied after trimming.
    expect(errorsOf({ ...valid, name: ` ${"n".repeat(80)} ` }).name?.[0]).toMatch(/at most 80 characters/);
    expect(errorsOf({ ...valid, description: ` ${"d".repeat(4000)} ` }).description?.[0]).toMatch(/at most 4000 characters/);
    expect(reasonInput.safeParse({ reason: `  ${"r".repeat(2000)}` }).success).toBe(false);
    expect(publishMajorVersionInput.safeParse({ definition: "{}", reason: ` ${"r".repeat(2000)}` }).success).toBe(false);
    expect(errorsOf({ ...valid, name: "  Order Events  " })).toEqual({});
  });

  it("dates are ISO dates or date-times with an offset (the document's format), nothing Date would also have parsed", async () => {
    const { deprecateProductInput, publishMajorVersionInput } = await import("./validation.ts");
    const { contractFilesInput } = await import("./actions/apply-contract.ts");
    for (const sunsetAt of ["Jan 31 2099", "2099", "31/01/2099", 4_102_444_800_000, "2099-01-31T00:00:00"]) {
      expect(deprecateProductInput.safeParse({ reason: "Replaced by v2", sunsetAt }).success, String(sunsetAt)).toBe(false);
      expect(publishMajorVersionInput.safeParse({ definition: "{}", sunsetAt }).success, String(sunsetAt)).toBe(false);
      expect(contractFilesInput.safeParse({ contracts: [{ content: "x" }], sunsetAt }).success, String(sunsetAt)).toBe(false);
    }
    for (const sunsetAt of ["2099-01-31", "2099-01-31T00:00:00Z", "2099-01-31T00:00:00.000+02:00"]) {
      expect(deprecateProductInput.parse({ reason: "Replaced by v2", sunsetAt }).sunsetAt).toBeInstanceOf(Date);
    }
    // The major-version form sends "" for "no sunset": still accepted, as the document says.
    expect(publishMajorVersionInput.parse({ definition: "{}", sunsetAt: "" }).sunsetAt).toBeUndefined();
  });

  it("the latest-state query is checked whole, with or without keys=1", async () => {
    const { stateQueryInput } = await import("./records/inputs.ts");
    expect(stateQueryInput.safeParse({ limit: "abc" }).success).toBe(false);
    expect(stateQueryInput.safeParse({ keys: "yes" }).success).toBe(false);
    expect(stateQueryInput.safeParse({ after: "zz" }).success).toBe(false);
    expect(stateQueryInput.parse({ keys: "1", limit: "10" })).toMatchObject({ keys: "1", limit: 10, encoding: "utf8" });
  });
});

describe("the document's text patterns are the text rules (issue 30, finding 18)", () => {
  // Texts a generator tries: blanks, controls, line breaks, lone surrogates, astral characters, trimmed lengths around the minimum.
  const samples = ["", " ", "  \t ", "a", " a ", "ab", " ab ", "a b", "abc", "a\tb", "a\nb", "a\r\nb", "\na b c\n", "a\u0006b", "a\u0000", "\u007f", "a\u0085b", "\u00a0ab\u00a0", "\ufeffabc", "a\u2028b", "\u3000\u3000x\u3000", "𝕋𝕙𝕖", "\ud800", "a\udc00b", "x\ud83d\ude00y", "héllo wörld", "a".repeat(12), ` ${"b".repeat(9)} `];
  const cases = [
    { multiline: false, min: 0 },
    { multiline: true, min: 0 },
    { multiline: false, min: 1 },
    { multiline: true, min: 1 },
    { multiline: false, min: 3 },
    { multiline: true, min: 10 },
  ];
  for (const { multiline, min } of cases) {
    it(`${multiline ? "multi-line" : "one-line"} text of at least ${min} characters: the pattern accepts exactly what text() accepts`, () => {
      const schema = text("The text", 100, { multiline, min });
      // JSON Schema patterns are ECMA-262 regular expressions over code points (the `u` flag).
      const pattern = new RegExp(textPattern(multiline, min), "u");
      // Lone surrogates are the one rule the pattern leaves to the document's description (no regex engine over scalar values can name them).
      const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
      const wellFormed = samples.filter((sample) => !lone.test(sample));
      for (const sample of wellFormed) expect({ sample, documented: pattern.test(sample) }).toEqual({ sample, documented: schema.safeParse(sample).success });
      for (const sample of samples.filter((v) => lone.test(v))) expect(schema.safeParse(sample).success).toBe(false);
    });
  }

  it("text() and cleanString() state their pattern in the JSON Schema the document is built from", () => {
    const json = z.toJSONSchema(z.object({ name: text("Name", 80), reason: longText("The reason", 500, { min: 5, message: "Give a reason." }), token: cleanString("The token name") }), { io: "input" }) as { properties: Record<string, { pattern?: string; minLength?: number; maxLength?: number }> };
    expect(json.properties.name).toMatchObject({ pattern: textPattern(false), maxLength: 80 });
    expect(json.properties.reason).toMatchObject({ pattern: textPattern(true, 5), minLength: 5, maxLength: 500 });
    expect(json.properties.token).toMatchObject({ pattern: textPattern(false) });
  });
});

describe("rules the document states besides texts (issue 30, finding 18)", () => {
  const inputSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, Record<string, unknown>> };

  it("audit dates: the pattern admits only dates that exist as far as the handler can tell (no month 13, day 00 or hour 24)", () => {
    const from = inputSchema(auditQueryInput).properties.from!;
    const pattern = new RegExp(String(from.pattern), "u");
    for (const [value, real] of [["2026-01-15", true], ["2026-01-15T09:30:00Z", true], ["2026-01-15 09:30+01:00", true], ["0000-00-00", false], ["2026-13-01", false], ["2026-01-01T24:00", false], ["2026-01-01T9", false]] as const) {
      expect({ value, documented: pattern.test(value) }).toEqual({ value, documented: real });
      expect({ value, accepted: auditQueryInput.safeParse({ from: value }).success }).toEqual({ value, accepted: real });
    }
  });

  it("retention -1 or at least an hour, local retention -2 or at least a minute, unique token scopes, quota reasons at most reasonMax as sent", () => {
    const product = inputSchema(registerProductInput).properties;
    expect(product.retentionMs).toMatchObject({ anyOf: [{ const: -1 }, { minimum: LIMITS.retentionMinMs }] });
    expect(product.localRetentionMs).toMatchObject({ anyOf: [{ const: -2 }, { minimum: LIMITS.localRetentionMinMs }] });
    expect(inputSchema(createApiTokenInput).properties.scopes).toMatchObject({ uniqueItems: true });
    expect(inputSchema(rejectQuotaClassInput).properties.reason).toMatchObject({ maxLength: LIMITS.reasonMax, minLength: LIMITS.reasonMin, pattern: textPattern(true, LIMITS.reasonMin) });
    expect(rejectQuotaClassInput.safeParse({ reason: "x".repeat(LIMITS.reasonMax + 1) }).success).toBe(false);
  });
});
