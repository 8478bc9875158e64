import { parse as parseYaml, YAMLParseError } from "yaml";
import { ValidationError } from "../errors.ts";
import { slugify } from "../naming.ts";
import { MAX_NESTING_DEPTH, nestingMessage, valueDepth } from "../nesting.ts";
import type { QualityRule } from "../quality/rules.ts";
import { registerProductInput } from "../validation.ts";
import { KAPPA_PROPERTIES, type OdcsContract, type OdcsCustomProperty, type OdcsSlaProperty } from "./odcs-types.ts";
import { qualityFromContract } from "./quality-section.ts";
import { odcsProblems } from "./validate.ts";

/*
 * An ODCS v3 contract file → the product it asks for. The file is validated
 * against the ODCS JSON Schema first, then mapped (see to-contract.ts for the
 * field table) and checked with the same zod schema as the product form, so
 * a contract gets exactly the validation a form does. Errors name the place
 * in the file (`customProperties.partitions`, `schema[0]...`).
 */

/** Largest contract file accepted: it holds a schema, not data. */
export const MAX_CONTRACT_LENGTH = 512_000;

export interface DesiredProduct {
  /** The contract's id: `<domain>.<product slug>`. */
  contractId: string;
  domainSlug: string;
  slug: string;
  name: string;
  description: string;
  classification: "PUBLIC" | "INTERNAL" | "CONFIDENTIAL" | "RESTRICTED";
  tags: string[];
  freshnessSeconds: number;
  availabilityPct: number;
  partitions: number;
  retentionMs: number;
  cleanupPolicy: "delete" | "compact";
  tieredStorage: boolean;
  localRetentionMs: number;
  contactEmail: string;
  keyFields: string[];
  schema: { format: "AVRO" | "JSON_SCHEMA"; definition: string };
  /** The schema object's CEL quality checks (none when the file has none). */
  qualityRules: QualityRule[];
  /** BACKWARD when the file names none (the platform default). */
  compatibilityMode: "BACKWARD" | "BACKWARD_TRANSITIVE" | "FORWARD" | "FORWARD_TRANSITIVE" | "FULL" | "FULL_TRANSITIVE" | "NONE";
  /** The major version the file names in `version` (informational; the plan decides). */
  requestedMajor: number | null;
  /** Field-level encryption of the PII fields (schema[0].customProperties.encryptPii); false when the file has none. */
  encryptPii: boolean;
  /** A derived product's Flink SQL statement (schema[0].customProperties.derivedStatement), normalised; null when the file has none. */
  derivedStatement: string | null;
}

export interface ParsedContract {
  contract: OdcsContract;
  desired: DesiredProduct;
}

type Problems = Record<string, string[]>;
const add = (problems: Problems, path: string, message: string) => (problems[path] ??= []).push(message);

/** As the form and `POST /api/v1/derived/validate` take a statement (derivedStatementInput). */
export const MAX_STATEMENT_LENGTH = 20_000;

/**
 * A statement as the catalog keeps it: trimmed, without a trailing semicolon
 * (normaliseStatement), with LF line ends — a YAML block or a file saved on
 * Windows must not read as a changed statement.
 */
export function contractStatement(statement: string): string {
  return statement.replace(/\r\n?/g, "\n").trim().replace(/;\s*$/, "").trim();
}

function derivedStatementFrom(contract: OdcsContract, problems: Problems): string | null {
  const where = `schema[0].customProperties.${KAPPA_PROPERTIES.derivedStatement}`;
  if (custom(contract.customProperties, KAPPA_PROPERTIES.derivedStatement) !== undefined) {
    add(problems, `customProperties.${KAPPA_PROPERTIES.derivedStatement}`, `A derived product's statement computes its topic: put it on the schema object, as ${where}.`);
  }
  const value = custom(contract.schema?.[0]?.customProperties, KAPPA_PROPERTIES.derivedStatement);
  if (value === undefined) return null;
  if (typeof value !== "string") {
    add(problems, where, "derivedStatement is the Flink SQL statement, as text.");
    return null;
  }
  const statement = contractStatement(value);
  if (statement.length === 0) add(problems, where, "derivedStatement is empty: write the Flink SQL statement, or leave the property out for a product that is not derived.");
  else if (statement.length > MAX_STATEMENT_LENGTH) add(problems, where, `derivedStatement may be at most ${MAX_STATEMENT_LENGTH} characters.`);
  return statement;
}

function encryptPiiFrom(contract: OdcsContract, problems: Problems): boolean {
  const where = `schema[0].customProperties.${KAPPA_PROPERTIES.encryptPii}`;
  if (custom(contract.customProperties, KAPPA_PROPERTIES.encryptPii) !== undefined) {
    add(problems, `customProperties.${KAPPA_PROPERTIES.encryptPii}`, `Field-level encryption applies to the schema object's PII fields: put it on the schema object, as ${where}.`);
  }
  const value = custom(contract.schema?.[0]?.customProperties, KAPPA_PROPERTIES.encryptPii);
  if (value === undefined) return false;
  if (typeof value !== "boolean") {
    add(problems, where, "encryptPii is true or false.");
    return false;
  }
  return value;
}

/** Reads YAML or JSON (JSON is YAML) into a plain value. */
export function readContractText(text: string): unknown {
  if (text.length > MAX_CONTRACT_LENGTH) throw new ValidationError(`The contract is ${text.length} characters; at most ${MAX_CONTRACT_LENGTH} are accepted.`);
  let value: unknown;
  try {
    value = parseYaml(text, { prettyErrors: true, maxAliasCount: 100 });
  } catch (error) {
    throw new ValidationError("The contract is not valid YAML or JSON.", { _: [error instanceof YAMLParseError ? error.message : String(error)] });
  }
  // Before anything walks it (mapping, the ODCS schema, the YAML export).
  if (valueDepth(value) > MAX_NESTING_DEPTH) throw new ValidationError(nestingMessage("The contract"), { _: [nestingMessage("The contract")] });
  return value;
}

function custom(list: OdcsCustomProperty[] | undefined, name: string): unknown {
  return list?.find((p) => p.property === name)?.value;
}

function sla(list: OdcsSlaProperty[] | undefined, name: string): OdcsSlaProperty | undefined {
  return list?.find((p) => p.property.toLowerCase() === name.toLowerCase());
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, day: 86_400_000, days: 86_400_000, y: 365 * 86_400_000, yr: 365 * 86_400_000, years: 365 * 86_400_000 };

function retentionFrom(entry: OdcsSlaProperty | undefined, problems: Problems): number {
  if (!entry) return -1; // the platform default: keep forever
  if (entry.value === "forever" || entry.value === -1) return -1;
  const unit = (entry.unit ?? "ms").toLowerCase();
  const factor = UNIT_MS[unit];
  if (typeof entry.value !== "number" || factor === undefined) {
    add(problems, "slaProperties.retention", 'Retention is a number with a unit (ms, s, m, h, d, y) or "forever".');
    return Number.NaN;
  }
  return Math.round(entry.value * factor);
}

function freshnessFrom(entry: OdcsSlaProperty | undefined, problems: Problems): number {
  if (!entry) {
    add(problems, "slaProperties.latency", "State the freshness as an SLA property `latency` with a unit (s, m, h).");
    return Number.NaN;
  }
  const factor = UNIT_MS[(entry.unit ?? "s").toLowerCase()];
  if (typeof entry.value !== "number" || factor === undefined) {
    add(problems, "slaProperties.latency", "Latency is a number with a unit (s, m, h, d).");
    return Number.NaN;
  }
  return Math.round((entry.value * factor) / 1000);
}

function contactFrom(contract: OdcsContract): string {
  const email = contract.support?.find((s) => (s.url ?? "").startsWith("mailto:") || s.channel === "email" || s.tool === "email");
  return (email?.url ?? "").replace(/^mailto:/, "");
}

function schemaFrom(contract: OdcsContract, problems: Problems): { format: "AVRO" | "JSON_SCHEMA"; definition: string; keyFields: string[] } {
  const objects = contract.schema ?? [];
  if (objects.length !== 1) {
    add(problems, "schema", `A Kappa Mesh contract describes one topic: exactly one schema object (found ${objects.length}).`);
    return { format: "AVRO", definition: "", keyFields: [] };
  }
  const object = objects[0];
  const rawFormat = custom(object?.customProperties, KAPPA_PROPERTIES.schemaFormat);
  const format = rawFormat === "json-schema" || rawFormat === "jsonschema" || rawFormat === "json" ? "JSON_SCHEMA" : rawFormat === "avro" || rawFormat === undefined ? "AVRO" : null;
  if (!format) add(problems, "schema[0].customProperties.schemaFormat", 'schemaFormat is "avro" or "json-schema".');
  const physical = custom(object?.customProperties, KAPPA_PROPERTIES.schema);
  if (physical === undefined || physical === null) {
    add(problems, "schema[0].customProperties.schema", "Attach the physical Avro or JSON Schema as the schema object's custom property `schema`.");
  }
  const definition = typeof physical === "string" ? physical : physical === undefined || physical === null ? "" : JSON.stringify(physical);
  // Key fields: the top-level properties marked primaryKey, by primaryKeyPosition.
  const keys = (object?.properties ?? [])
    .filter((p) => p.primaryKey === true)
    .sort((a, b) => (a.primaryKeyPosition ?? Number.MAX_SAFE_INTEGER) - (b.primaryKeyPosition ?? Number.MAX_SAFE_INTEGER))
    .map((p) => p.name);
  return { format: format ?? "AVRO", definition, keyFields: keys };
}

/**
 * Validates and maps a contract (already read from YAML/JSON). Throws a
 * ValidationError listing every problem by its place in the file.
 */
export function contractToDesired(value: unknown): ParsedContract {
  const structural = odcsProblems(value);
  if (structural.length > 0) {
    const fields: Problems = {};
    for (const p of structural) add(fields, p.path, p.message);
    throw new ValidationError(`The file is not a valid ODCS v3 contract: ${structural[0]?.path} ${structural[0]?.message}`, fields);
  }
  const contract = value as OdcsContract;
  const problems: Problems = {};
  if (!contract.domain) add(problems, "domain", "Name the owning domain (its slug, e.g. orders).");
  const name = contract.name ?? contract.dataProduct ?? "";
  if (!name) add(problems, "name", "Name the product (`name`).");
  const slug = slugify(name);
  const domainSlug = contract.domain ?? "";
  const expectedId = `${domainSlug}.${slug}`;
  if (contract.id !== expectedId) add(problems, "id", `The id of this product's contract is "${expectedId}" (<domain>.<name as slug>), not "${contract.id}".`);
  const schema = schemaFrom(contract, problems);
  const derivedStatement = derivedStatementFrom(contract, problems);
  const encryptPii = encryptPiiFrom(contract, problems);
  const qualityRules = qualityFromContract(contract.schema?.[0]?.quality, (path, message) => add(problems, path, message));
  const major = /^(\d+)\./.exec(contract.version)?.[1];
  const mapped = {
    domainId: "contract",
    name,
    description: contract.description?.purpose ?? "",
    classification: custom(contract.customProperties, KAPPA_PROPERTIES.classification),
    tags: contract.tags ?? [],
    freshnessSeconds: freshnessFrom(sla(contract.slaProperties, "latency") ?? sla(contract.slaProperties, "freshness"), problems),
    availabilityPct: sla(contract.slaProperties, "availability")?.value,
    partitions: custom(contract.customProperties, KAPPA_PROPERTIES.partitions),
    retentionMs: retentionFrom(sla(contract.slaProperties, "retention"), problems),
    cleanupPolicy: custom(contract.customProperties, KAPPA_PROPERTIES.cleanupPolicy) ?? "delete",
    tieredStorage: custom(contract.customProperties, KAPPA_PROPERTIES.tieredStorage) ?? false,
    localRetentionMs: custom(contract.customProperties, KAPPA_PROPERTIES.localRetentionMs) ?? -2,
    contactEmail: contactFrom(contract),
    keyFields: schema.keyFields,
    compatibilityMode: custom(contract.customProperties, KAPPA_PROPERTIES.compatibilityMode) ?? "BACKWARD",
    schema: { format: schema.format, definition: schema.definition },
  };
  const parsed = registerProductInput.safeParse(mapped);
  // The form's field names → where they live in the file.
  const where: Record<string, string> = {
    name: "name",
    description: "description.purpose",
    classification: "customProperties.classification",
    tags: "tags",
    freshnessSeconds: "slaProperties.latency",
    availabilityPct: "slaProperties.availability",
    partitions: "customProperties.partitions",
    retentionMs: "slaProperties.retention",
    cleanupPolicy: "customProperties.cleanupPolicy",
    tieredStorage: "customProperties.tieredStorage",
    localRetentionMs: "customProperties.localRetentionMs",
    contactEmail: "support.url (mailto:)",
    keyFields: "schema[0].properties.primaryKey",
    "schema.definition": "schema[0].customProperties.schema",
    "schema.format": "schema[0].customProperties.schemaFormat",
    compatibilityMode: "customProperties.compatibilityMode",
  };
  if (!parsed.success) {
    // A value the mapping already explained (NaN from a bad unit) needs no second message.
    const explained = new Set(Object.keys(problems));
    for (const issue of parsed.error.issues) {
      const key = issue.path.map(String).join(".");
      const top = where[key] ?? where[String(issue.path[0])] ?? key;
      if (!explained.has(top)) add(problems, top, issue.message);
    }
  }
  if (Object.keys(problems).length > 0 || !parsed.success) {
    const [first] = Object.entries(problems);
    throw new ValidationError(`The contract cannot become a product${first ? `: ${first[0]}: ${first[1].join(" ")}` : "."}`, problems);
  }
  const data = parsed.data;
  return {
    contract,
    desired: {
      contractId: contract.id,
      domainSlug,
      slug,
      name: data.name,
      description: data.description,
      classification: data.classification,
      tags: data.tags,
      freshnessSeconds: data.freshnessSeconds,
      availabilityPct: data.availabilityPct,
      partitions: data.partitions,
      retentionMs: data.retentionMs,
      cleanupPolicy: data.cleanupPolicy,
      tieredStorage: data.tieredStorage,
      localRetentionMs: data.localRetentionMs,
      contactEmail: data.contactEmail,
      keyFields: data.keyFields,
      schema: data.schema,
      compatibilityMode: data.compatibilityMode,
      qualityRules,
      encryptPii,
      requestedMajor: major ? Number(major) : null,
      derivedStatement,
    },
  };
}

/** Text (YAML or JSON) → the product it asks for. */
export function parseContract(text: string): ParsedContract {
  return contractToDesired(readContractText(text));
}
