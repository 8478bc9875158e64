import { describe, expect, it } from "vitest";
import {
  changedInput,
  durationFromMs,
  durationToMs,
  emptyFormValues,
  formToInput,
  LOCAL_RETENTION_PRESETS,
  parseTags,
  policyFactsFromValues,
  RETENTION_PRESETS,
  validateRegister,
  validateUpdate,
  valuesFromProduct,
  type ProductFormValues,
} from "./product-form";

const avro = JSON.stringify({ type: "record", name: "OrderPlaced", fields: [{ name: "orderId", type: "string" }] });

function filled(overrides: Partial<ProductFormValues> = {}): ProductFormValues {
  return {
    ...emptyFormValues("dom1", "owner@orders.example"),
    name: "Order Events",
    description: "Every order placed in the shop.",
    tags: "orders, Events",
    schemaDefinition: avro,
    ...overrides,
  };
}

describe("formToInput", () => {
  it("converts the form's strings to the catalog's register input", () => {
    expect(formToInput(filled())).toEqual({
      domainId: "dom1",
      name: "Order Events",
      description: "Every order placed in the shop.",
      classification: "INTERNAL",
      tags: ["orders", "events"],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 3,
      retentionMs: -1,
      cleanupPolicy: "delete",
      tieredStorage: false,
      localRetentionMs: -2,
      contactEmail: "owner@orders.example",
      keyFields: [],
      compatibilityMode: "BACKWARD",
      schema: { format: "AVRO", definition: avro },
    });
  });

  it("splits key fields and gives the policy evaluator the form as typed", () => {
    expect(formToInput(filled({ keyFields: " orderId, lineNo ,," })).keyFields).toEqual(["orderId", "lineNo"]);
    const facts = policyFactsFromValues(filled({ cleanupPolicy: "compact", keyFields: "orderId", partitions: "x" }));
    expect(facts).toMatchObject({ cleanupPolicy: "compact", keyFields: ["orderId"], retentionMs: -1, schema: { format: "AVRO" } });
    expect(Number.isNaN(facts.partitions)).toBe(true);
    expect(policyFactsFromValues(filled({ schemaDefinition: "  " })).schema).toBeNull();
  });

  it("keeps the hot window only when tiered storage is on", () => {
    const hot = { choice: "3600000", amount: "", unit: "days" as const };
    expect(formToInput(filled({ tieredStorage: false, localRetention: hot })).localRetentionMs).toBe(-2);
    expect(formToInput(filled({ tieredStorage: true, localRetention: hot })).localRetentionMs).toBe(3_600_000);
  });

  it("accepts a decimal comma in the availability", () => {
    expect(formToInput(filled({ availabilityPct: "99,95" })).availabilityPct).toBe(99.95);
  });
});

describe("durations", () => {
  it("maps presets and custom amounts to milliseconds", () => {
    expect(durationToMs({ choice: "-1", amount: "", unit: "days" })).toBe(-1);
    expect(durationToMs({ choice: "custom", amount: "14", unit: "days" })).toBe(14 * 86_400_000);
    expect(durationToMs({ choice: "custom", amount: "90", unit: "minutes" })).toBe(5_400_000);
    expect(durationToMs({ choice: "custom", amount: "", unit: "hours" })).toBeNaN();
    expect(durationToMs({ choice: "custom", amount: "abc", unit: "hours" })).toBeNaN();
  });

  it("shows a stored value as its preset, or as custom in the largest whole unit", () => {
    expect(durationFromMs(-1, RETENTION_PRESETS).choice).toBe("-1");
    expect(durationFromMs(14 * 86_400_000, RETENTION_PRESETS)).toEqual({ choice: "custom", amount: "14", unit: "days" });
    expect(durationFromMs(5 * 3_600_000, LOCAL_RETENTION_PRESETS)).toEqual({ choice: "custom", amount: "5", unit: "hours" });
    expect(durationFromMs(90_000 * 2, LOCAL_RETENTION_PRESETS)).toEqual({ choice: "custom", amount: "3", unit: "minutes" });
  });

  it("round-trips every stored value through the picker", () => {
    for (const ms of [-1, 3_600_000, 86_400_000, 10 * 86_400_000, 7_200_000, 600_000]) {
      expect(durationToMs(durationFromMs(ms, RETENTION_PRESETS))).toBe(ms);
    }
  });
});

describe("parseTags", () => {
  it("splits on commas and spaces, lower-cases, drops empties", () => {
    expect(parseTags(" Orders,events  core,, ")).toEqual(["orders", "events", "core"]);
    expect(parseTags("")).toEqual([]);
  });
});

describe("validateRegister (the server's own schema)", () => {
  it("accepts a complete form", () => {
    expect(validateRegister(filled())).toBeNull();
  });

  it("reports each bad field under the key the form shows it at", () => {
    const errors = validateRegister(
      filled({ name: "x", description: "short", partitions: "0", freshnessSeconds: "", availabilityPct: "50", contactEmail: "nope", schemaDefinition: "{" }),
    );
    expect(Object.keys(errors ?? {}).sort()).toEqual(
      ["availabilityPct", "contactEmail", "description", "freshnessSeconds", "name", "partitions", "schema.definition"].sort(),
    );
    expect(errors?.freshnessSeconds?.[0]).toMatch(/number/i);
  });

  it("refuses a custom retention below one hour and tiered storage on a compacted topic", () => {
    const errors = validateRegister(
      filled({ retention: { choice: "custom", amount: "10", unit: "minutes" }, cleanupPolicy: "compact", tieredStorage: true }),
    );
    expect(errors?.retentionMs?.[0]).toMatch(/one hour/);
    expect(errors?.tieredStorage?.[0]).toMatch(/compacted/);
  });
});

describe("changedInput (PATCH body)", () => {
  const stored = {
    domainId: "dom1",
    name: "Order Events",
    description: "Every order placed in the shop.",
    classification: "INTERNAL",
    tags: ["orders", "events"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 6,
    retentionMs: -1,
    cleanupPolicy: "delete",
    tieredStorage: true,
    localRetentionMs: 3_600_000,
    contactEmail: "owner@orders.example",
    schemaVersions: [{ format: "AVRO", definition: avro }],
  };

  it("is empty when nothing changed, so an approved product's locked fields are never sent", () => {
    const initial = valuesFromProduct(stored);
    expect(changedInput(initial, { ...initial })).toEqual({});
  });

  it("contains exactly the edited fields, converted", () => {
    const initial = valuesFromProduct(stored);
    const patch = changedInput(initial, { ...initial, description: "Every order placed in the web shop.", tags: "orders, events, core", partitions: "12" });
    expect(patch).toEqual({ description: "Every order placed in the web shop.", tags: ["orders", "events", "core"], partitions: 12 });
    expect(validateUpdate(patch)).toBeNull();
  });

  it("validates the patch with the update schema", () => {
    const initial = valuesFromProduct(stored);
    const errors = validateUpdate(changedInput(initial, { ...initial, availabilityPct: "101" }));
    expect(errors?.availabilityPct?.[0]).toMatch(/100/);
  });
});
