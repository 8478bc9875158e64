import { dlqTopicOf, type QualityRule } from "./rules.ts";

/*
 * A product's data contract in the JSON shape of Confluent Schema Registry's
 * data contracts (issue 29), as the registry API serves it with every approved
 * version: `ruleSet` ({ domainRules, migrationRules }) and `metadata`
 * ({ tags, properties }). `@confluentinc/schemaregistry` (and Confluent's Java,
 * Go, Python and .NET clients) read these and run the rules unchanged.
 */

export interface RegistryRule {
  name: string;
  doc?: string;
  kind: "CONDITION" | "TRANSFORM";
  mode: "WRITE" | "READ" | "WRITEREAD" | "UPGRADE" | "DOWNGRADE";
  type: "CEL" | "CEL_FIELD" | "ENCRYPT" | "JSONATA";
  tags?: string[];
  params?: Record<string, string>;
  expr?: string;
  onSuccess?: string;
  /** `ERROR,NONE` on a WRITEREAD rule: the first on write, the second on read (Confluent's syntax). */
  onFailure: "ERROR" | "DLQ" | "NONE" | "ERROR,NONE";
  disabled: boolean;
}

export interface RegistryRuleSet {
  domainRules: RegistryRule[];
  migrationRules: RegistryRule[];
}

export interface RegistryMetadata {
  tags: Record<string, string[]>;
  properties: Record<string, string>;
}

/** The tag whose fields are encrypted when the owners opt in. */
export const ENCRYPTED_TAG = "PII";

/**
 * The ENCRYPT rule served when the owners opted in (issue 29): a field
 * transform on every field tagged PII, run by `@confluentinc/schemaregistry`'s
 * FieldEncryptionExecutor with the domain's KEK from the DEK Registry API.
 * On write a failure refuses the record (nothing goes out in clear); on read
 * it is NONE, so a consumer not entitled to the key gets the ciphertext.
 */
export function encryptRule(kekName: string, kmsType: string, kmsKeyId: string): RegistryRule {
  return {
    name: "encrypt-pii",
    doc: "Fields classified as PII are encrypted by the producer's serializer; only consumers approved for PII get the key.",
    kind: "TRANSFORM",
    mode: "WRITEREAD",
    type: "ENCRYPT",
    tags: [ENCRYPTED_TAG],
    params: { "encrypt.kek.name": kekName, "encrypt.kms.type": kmsType, "encrypt.kms.key.id": kmsKeyId, "encrypt.dek.algorithm": "AES256_GCM" },
    onSuccess: "NONE",
    onFailure: "ERROR,NONE",
    disabled: false,
  };
}

/** The rules as Confluent's Rule objects; a DLQ rule names its dead-letter topic in `params["dlq.topic"]`, as Confluent's DLQ action reads it. The ENCRYPT rule, if any, runs last on write (after the conditions saw the clear values) and first on read. */
export function registryRuleSet(topicName: string, rules: readonly QualityRule[], encrypt: RegistryRule | null = null): RegistryRuleSet {
  return {
    domainRules: [...rules.map((r): RegistryRule => ({
      name: r.name,
      ...(r.description ? { doc: r.description } : {}),
      kind: "CONDITION",
      mode: r.mode,
      type: r.kind,
      ...(r.tags.length > 0 ? { tags: [...r.tags] } : {}),
      ...(r.onFailure === "DLQ" ? { params: { "dlq.topic": dlqTopicOf(topicName) } } : {}),
      expr: r.expression,
      onSuccess: "NONE",
      onFailure: r.onFailure,
      disabled: false,
    })), ...(encrypt ? [encrypt] : [])],
    // A new major version's migration rules (JSONata) are added per version by the registry (schema-registry/subjects.ts).
    migrationRules: [],
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Field tags of an Avro schema, keyed by the field's full name as Confluent's
 * serdes match them (`<record full name>.<field>`): `PII` for fields the
 * schema marks `"pii": true`, and any tags in Confluent's own `confluent:tags`.
 */
function avroFieldTags(schema: Json, out: Record<string, string[]>, namespace: string, seen: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const branch of schema) avroFieldTags(branch, out, namespace, seen);
    return;
  }
  if (!isObject(schema)) return;
  if (schema.type === "array") return avroFieldTags(schema.items ?? null, out, namespace, seen);
  if (schema.type === "map") return avroFieldTags(schema.values ?? null, out, namespace, seen);
  if (schema.type !== "record" || typeof schema.name !== "string") return;
  const ns = typeof schema.namespace === "string" ? schema.namespace : namespace;
  const fullName = schema.name.includes(".") || ns === "" ? schema.name : `${ns}.${schema.name}`;
  if (seen.has(fullName)) return;
  seen.add(fullName);
  const recordNamespace = fullName.includes(".") ? fullName.slice(0, fullName.lastIndexOf(".")) : "";
  for (const field of Array.isArray(schema.fields) ? schema.fields : []) {
    if (!isObject(field) || typeof field.name !== "string") continue;
    const tags = new Set<string>();
    if (field.pii === true) tags.add("PII");
    const own = field["confluent:tags"];
    if (Array.isArray(own)) for (const t of own) if (typeof t === "string") tags.add(t);
    if (tags.size > 0) out[`${fullName}.${field.name}`] = [...tags].sort();
    avroFieldTags(field.type ?? null, out, recordNamespace, seen);
  }
}

/** JSON Schema: the property's path (`**.` first, as Confluent's wildcard matcher reads any enclosing name) for `"x-pii": true`. */
function jsonSchemaFieldTags(schema: Json, out: Record<string, string[]>, path: string): void {
  if (!isObject(schema)) return;
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const [name, sub] of Object.entries(properties)) {
      const at = path ? `${path}.${name}` : name;
      if (isObject(sub)) {
        const tags = new Set<string>();
        if (sub["x-pii"] === true) tags.add("PII");
        const own = sub["confluent:tags"];
        if (Array.isArray(own)) for (const t of own) if (typeof t === "string") tags.add(t);
        if (tags.size > 0) out[`**.${at}`] = [...tags].sort();
        jsonSchemaFieldTags(sub, out, at);
      }
    }
  }
  if (isObject(schema.items)) jsonSchemaFieldTags(schema.items, out, path);
}

/** Whether the schema classifies any field PII, i.e. field-level encryption has something to encrypt. */
export function hasEncryptableFields(format: "AVRO" | "JSON_SCHEMA", definition: string): boolean {
  return Object.values(registryFieldTags(format, definition)).some((tags) => tags.includes(ENCRYPTED_TAG));
}

export function registryFieldTags(format: "AVRO" | "JSON_SCHEMA", definition: string): Record<string, string[]> {
  let parsed: Json;
  try {
    parsed = JSON.parse(definition) as Json;
  } catch {
    return {};
  }
  const out: Record<string, string[]> = {};
  if (format === "AVRO") avroFieldTags(parsed, out, "", new Set());
  else jsonSchemaFieldTags(parsed, out, "");
  return out;
}

/** The version's metadata: field tags from the classification of its fields, and the product's owner, classification and SLA as properties. */
export function registryMetadata(
  product: { classification: string; contactEmail: string; freshnessSeconds: number; availabilityPct: unknown; domain: { slug: string } },
  version: { format: "AVRO" | "JSON_SCHEMA"; definition: string },
): RegistryMetadata {
  return {
    tags: registryFieldTags(version.format, version.definition),
    properties: {
      owner: product.domain.slug,
      classification: product.classification,
      contact: product.contactEmail,
      "sla.freshnessSeconds": String(product.freshnessSeconds),
      "sla.availabilityPct": String(product.availabilityPct),
    },
  };
}
