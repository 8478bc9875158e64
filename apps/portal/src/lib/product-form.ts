import type { ProductFacts } from "@kappa/catalog/policy";
import { registerProductInput, updateProductInput, fieldErrors, type RegisterProductInput, type UpdateProductInput } from "@kappa/catalog/validation";

/*
 * The product form keeps what the user typed (strings, a duration picker) and
 * converts it to the catalog's input contract right before validating with the
 * same zod schemas the server uses. Conversion never guesses: a number field
 * that is not a number stays NaN so the schema reports it next to the field.
 */

export type DurationUnit = "minutes" | "hours" | "days";
export interface DurationValue {
  /** A preset's milliseconds as a string, or "custom". */
  choice: string;
  amount: string;
  unit: DurationUnit;
}

export const UNIT_MS: Record<DurationUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

export const RETENTION_PRESETS: { ms: number; label: string }[] = [
  { ms: -1, label: "Forever (replayable from the start)" },
  { ms: 86_400_000, label: "1 day" },
  { ms: 7 * 86_400_000, label: "7 days" },
  { ms: 30 * 86_400_000, label: "30 days" },
  { ms: 90 * 86_400_000, label: "90 days" },
  { ms: 365 * 86_400_000, label: "1 year" },
];

export const LOCAL_RETENTION_PRESETS: { ms: number; label: string }[] = [
  { ms: -2, label: "Same as retention" },
  { ms: 3_600_000, label: "1 hour" },
  { ms: 86_400_000, label: "1 day" },
  { ms: 7 * 86_400_000, label: "7 days" },
];

export interface ProductFormValues {
  domainId: string;
  name: string;
  description: string;
  classification: string;
  tags: string;
  freshnessSeconds: string;
  availabilityPct: string;
  partitions: string;
  retention: DurationValue;
  cleanupPolicy: string;
  tieredStorage: boolean;
  localRetention: DurationValue;
  contactEmail: string;
  /** Comma-separated top-level field names forming the record key. */
  keyFields: string;
  /** How later schema versions must relate to earlier ones (Confluent's modes). */
  compatibilityMode: string;
  schemaFormat: string;
  schemaDefinition: string;
}

/** Fields that stay editable after approval (the server enforces the same list). */
export const METADATA_FIELDS: readonly string[] = ["description", "tags", "freshnessSeconds", "availabilityPct", "contactEmail"];

export function parseKeyFields(raw: string): string[] {
  return raw
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}

/** Picker value for a stored number of milliseconds: a preset when one matches, else custom in the largest whole unit. */
export function durationFromMs(ms: number, presets: { ms: number }[]): DurationValue {
  if (presets.some((p) => p.ms === ms)) return { choice: String(ms), amount: "", unit: "days" };
  const unit: DurationUnit = ms % UNIT_MS.days === 0 ? "days" : ms % UNIT_MS.hours === 0 ? "hours" : "minutes";
  return { choice: "custom", amount: String(ms / UNIT_MS[unit]), unit };
}

/** Milliseconds for a picker value; NaN when the custom amount is not a number. */
export function durationToMs(value: DurationValue): number {
  if (value.choice !== "custom") return Number(value.choice);
  return Math.round(parseNumber(value.amount) * UNIT_MS[value.unit]);
}

/** An empty or non-numeric field becomes NaN, which the schema reports as "must be a number". */
function parseNumber(raw: string): number {
  const s = raw.trim();
  return s === "" ? Number.NaN : Number(s.replace(",", "."));
}

export function parseTags(raw: string): string[] {
  return raw
    .split(/[,\s]+/)
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t.length > 0);
}

export function emptyFormValues(domainId: string, contactEmail: string): ProductFormValues {
  return {
    domainId,
    name: "",
    description: "",
    classification: "INTERNAL",
    tags: "",
    freshnessSeconds: "60",
    availabilityPct: "99.9",
    partitions: "3",
    retention: { choice: "-1", amount: "", unit: "days" },
    cleanupPolicy: "delete",
    tieredStorage: false,
    localRetention: { choice: "-2", amount: "", unit: "days" },
    contactEmail,
    keyFields: "",
    compatibilityMode: "BACKWARD",
    schemaFormat: "AVRO",
    schemaDefinition: "",
  };
}

/** The form's values as the catalog's input (what POST /api/v1/products takes). */
export function formToInput(values: ProductFormValues): RegisterProductInput {
  return {
    domainId: values.domainId,
    name: values.name,
    description: values.description,
    classification: values.classification as RegisterProductInput["classification"],
    tags: parseTags(values.tags),
    freshnessSeconds: parseNumber(values.freshnessSeconds),
    availabilityPct: parseNumber(values.availabilityPct),
    partitions: parseNumber(values.partitions),
    retentionMs: durationToMs(values.retention),
    cleanupPolicy: values.cleanupPolicy as RegisterProductInput["cleanupPolicy"],
    tieredStorage: values.tieredStorage,
    // Without tiered storage the hot window means nothing; keep Kafka's default.
    localRetentionMs: values.tieredStorage ? durationToMs(values.localRetention) : -2,
    contactEmail: values.contactEmail,
    keyFields: parseKeyFields(values.keyFields),
    compatibilityMode: values.compatibilityMode as RegisterProductInput["compatibilityMode"],
    schema: { format: values.schemaFormat as "AVRO" | "JSON_SCHEMA", definition: values.schemaDefinition },
  };
}

/**
 * Only what changed, for PATCH: the server refuses changes to locked fields of
 * an approved product, so sending unchanged values would be refused too.
 */
export function changedInput(initial: ProductFormValues, current: ProductFormValues): UpdateProductInput {
  const before = formToInput(initial);
  const after = formToInput(current);
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof RegisterProductInput)[]) {
    if (key === "domainId") continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) patch[key] = after[key];
  }
  return patch;
}

export type FieldErrorMap = Record<string, string[]>;

/** Client-side check with the server's schema; null when valid. */
export function validateRegister(values: ProductFormValues): FieldErrorMap | null {
  const result = registerProductInput.safeParse(formToInput(values));
  return result.success ? null : fieldErrors(result.error);
}

export function validateUpdate(patch: UpdateProductInput): FieldErrorMap | null {
  const result = updateProductInput.safeParse(patch);
  return result.success ? null : fieldErrors(result.error);
}

/** The fields of a stored product (as the API returns it) that the form edits. */
export interface StoredProduct {
  domainId: string;
  name: string;
  description: string;
  classification: string;
  tags: string[];
  freshnessSeconds: number;
  availabilityPct: number;
  partitions: number;
  retentionMs: number;
  cleanupPolicy: string;
  tieredStorage: boolean;
  localRetentionMs: number;
  contactEmail: string;
  keyFields?: string[];
  compatibilityMode?: string;
  schemaVersions: { format: string; definition: string }[];
}

export function valuesFromProduct(p: StoredProduct): ProductFormValues {
  const schema = p.schemaVersions[0];
  return {
    domainId: p.domainId,
    name: p.name,
    description: p.description,
    classification: p.classification,
    tags: p.tags.join(", "),
    freshnessSeconds: String(p.freshnessSeconds),
    availabilityPct: String(p.availabilityPct),
    partitions: String(p.partitions),
    retention: durationFromMs(p.retentionMs, RETENTION_PRESETS),
    cleanupPolicy: p.cleanupPolicy,
    tieredStorage: p.tieredStorage,
    localRetention: durationFromMs(p.localRetentionMs, LOCAL_RETENTION_PRESETS),
    contactEmail: p.contactEmail,
    keyFields: (p.keyFields ?? []).join(", "),
    compatibilityMode: p.compatibilityMode ?? "BACKWARD",
    schemaFormat: schema?.format ?? "AVRO",
    schemaDefinition: schema ? prettyJson(schema.definition) : "",
  };
}

/** Indented for editing; text that is not JSON stays as stored. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** What the policy rules look at, from the form as typed (numbers that are not numbers stay NaN: no verdict). */
export function policyFactsFromValues(values: ProductFormValues): ProductFacts {
  const input = formToInput(values);
  return {
    name: input.name,
    description: input.description,
    contactEmail: input.contactEmail,
    classification: input.classification,
    partitions: input.partitions,
    retentionMs: input.retentionMs ?? -1,
    cleanupPolicy: input.cleanupPolicy ?? "delete",
    tieredStorage: input.tieredStorage ?? false,
    keyFields: input.keyFields ?? [],
    schema: values.schemaDefinition.trim() ? input.schema : null,
  };
}
