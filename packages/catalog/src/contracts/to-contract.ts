import { hasEncryptableFields } from "../quality/registry-rules.ts";
import type { QualityRule } from "../quality/rules.ts";
import { schemaFields, type SchemaField } from "../schema/fields.ts";
import { ODCS_API_VERSION, type OdcsContract, type OdcsProperty, KAPPA_PROPERTIES } from "./odcs-types.ts";
import { qualityToContract } from "./quality-section.ts";

/*
 * A product version as an Open Data Contract Standard v3.1.0 document. Which
 * ODCS field holds what (the contracts note repeats this table):
 *
 *   id                 <domain>.<product slug>     stable across major versions
 *   version            <major>.<schema version>.0  e.g. 1.3.0
 *   status             draft | proposed | active | deprecated | retired (our exact status: customProperties kappaStatus)
 *   name, dataProduct  the product's name
 *   domain             the domain's slug
 *   description.purpose the product's description
 *   tags               tags
 *   schema[0]          the topic: name = record name, physicalName = topic, physicalType "topic";
 *                      properties derived from the physical schema (logicalType, physicalType,
 *                      required, description, classification "pii" for tagged fields, primaryKey
 *                      + primaryKeyPosition for key fields); customProperties schemaFormat
 *                      (avro | json-schema), schema (the physical schema itself), schemaVersion;
 *                      for a derived product also derivedStatement (its Flink SQL statement);
 *                      encryptPii (true / false) when the schema classifies a field PII
 *                      (absent on import = false); quality: the CEL rules (quality-section.ts)
 *   slaProperties      latency (freshness, s), availability (%), retention (d / ms, or "forever")
 *   servers[0]         type kafka, host = bootstrap, format avro | json, customProperties topic
 *   support[0]         channel email, url mailto:<contact e-mail>
 *   team               the domain's owners (role owner)
 *   roles              the producer account (write) and subscribers (read, with their approvers)
 *   customProperties   classification, partitions, cleanupPolicy, tieredStorage, localRetentionMs,
 *                      compatibilityMode (when the catalog has one), kappaStatus, majorVersion
 *   contractCreatedTs  when the product was registered
 *
 * Derived fields (version, status, team, roles, servers, properties) are
 * written for readers and ignored on import; the physical schema is the
 * source of truth for the schema.
 *
 * Why a derived product's statement is a custom property of schema[0]: the
 * statement computes the topic that schema object describes, and its output
 * is that object's physical schema, so it belongs next to `schema`. ODCS
 * 3.1 has `transformLogic` / `transformSourceObjects` only on a property (a
 * column's lineage), not on a schema object, and a schema object admits no
 * other keys (unevaluatedProperties: false): a custom property is the place
 * the standard leaves for it. Not the contract's top-level customProperties:
 * those hold topic settings, and a contract of several objects would not say
 * which one the statement computes.
 */

export interface ContractProductInput {
  id: string;
  name: string;
  slug: string;
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
  keyFields: string[];
  majorVersion: number;
  topicName: string;
  status: string;
  createdAt: Date | string;
  compatibilityMode?: string | null;
  domain: { slug: string; name: string };
  owners: { name: string; email: string }[];
  schema: { version: number; format: "AVRO" | "JSON_SCHEMA"; definition: string } | null;
  /** The data-quality rules in force (the schema object's `quality`). */
  qualityRules?: QualityRule[];
  /** Field-level encryption of the PII fields (issue 29); written when the schema has any, or when on. */
  encryptPii?: boolean;
  /** A derived product (issue 34): the Flink SQL statement it is computed by; null or absent for any other product. */
  derived?: { statement: string } | null;
}

const STATUS: Record<string, string> = {
  DRAFT: "draft",
  REJECTED: "draft",
  IN_REVIEW: "proposed",
  APPROVED: "active",
  PROVISIONING: "active",
  ACTIVE: "active",
  DEPRECATED: "deprecated",
  RETIRED: "retired",
};

const DAY_MS = 86_400_000;

/** Retention as an SLA property: whole days when it is, milliseconds otherwise. */
export function retentionSla(ms: number): { property: "retention"; value: number | string; unit?: string; description: string } {
  if (ms === -1) return { property: "retention", value: "forever", description: "Records are kept forever (Kafka retention.ms = -1): consumers can replay from the start." };
  if (ms % DAY_MS === 0) return { property: "retention", value: ms / DAY_MS, unit: "d", description: `Records are kept ${ms / DAY_MS} days.` };
  return { property: "retention", value: ms, unit: "ms", description: `Records are kept ${ms} ms.` };
}

function toProperty(field: SchemaField, keyFields: string[], topLevel: boolean): OdcsProperty {
  const keyIndex = topLevel ? keyFields.indexOf(field.name) : -1;
  const property: OdcsProperty = {
    name: field.name,
    logicalType: field.logicalType,
    physicalType: field.physicalType,
    required: field.required,
  };
  if (field.description) property.description = field.description;
  if (field.pii === true) property.classification = "pii";
  if (keyIndex >= 0) {
    property.primaryKey = true;
    property.primaryKeyPosition = keyIndex + 1;
  }
  if (field.logicalType === "array" && field.items) {
    property.items = { logicalType: field.items.logicalType, physicalType: field.items.physicalType };
    if (field.children.length > 0) property.items.properties = field.children.map((c) => toProperty(c, [], false));
  } else if (field.children.length > 0) {
    property.properties = field.children.map((c) => toProperty(c, [], false));
  }
  return property;
}

function recordName(format: "AVRO" | "JSON_SCHEMA", definition: string, fallback: string): string {
  try {
    const parsed: unknown = JSON.parse(definition);
    if (typeof parsed === "object" && parsed !== null) {
      if (format === "AVRO" && "name" in parsed && typeof parsed.name === "string") return parsed.name;
      if (format === "JSON_SCHEMA" && "title" in parsed && typeof parsed.title === "string") return parsed.title;
    }
  } catch {
    // An unparsable stored schema still gets a contract; validation reports it.
  }
  return fallback;
}

/** The physical schema as a YAML/JSON value (an object), so a contract file stays readable. */
function physicalSchema(definition: string): unknown {
  try {
    return JSON.parse(definition);
  } catch {
    return definition;
  }
}

export function productToContract(product: ContractProductInput, options: { bootstrap: string }): OdcsContract {
  const schema = product.schema;
  const format = schema?.format === "JSON_SCHEMA" ? "json-schema" : "avro";
  const custom = [
    { property: KAPPA_PROPERTIES.classification, value: product.classification },
    { property: KAPPA_PROPERTIES.partitions, value: product.partitions },
    { property: KAPPA_PROPERTIES.cleanupPolicy, value: product.cleanupPolicy },
    { property: KAPPA_PROPERTIES.tieredStorage, value: product.tieredStorage },
    { property: KAPPA_PROPERTIES.localRetentionMs, value: product.localRetentionMs },
    ...(product.compatibilityMode ? [{ property: KAPPA_PROPERTIES.compatibilityMode, value: product.compatibilityMode }] : []),
    { property: KAPPA_PROPERTIES.majorVersion, value: product.majorVersion },
    { property: KAPPA_PROPERTIES.kappaStatus, value: product.status },
  ];
  const approvers = product.classification === "RESTRICTED" ? "governance reviewers" : `owners of ${product.domain.slug}, or governance reviewers`;
  const contract: OdcsContract = {
    apiVersion: ODCS_API_VERSION,
    kind: "DataContract",
    id: `${product.domain.slug}.${product.slug}`,
    name: product.name,
    version: `${product.majorVersion}.${schema?.version ?? 0}.0`,
    status: STATUS[product.status] ?? "draft",
    domain: product.domain.slug,
    dataProduct: product.name,
    description: { purpose: product.description },
    tags: [...product.tags],
    schema: schema
      ? [
          {
            name: recordName(schema.format, schema.definition, product.slug),
            physicalName: product.topicName,
            physicalType: "topic",
            logicalType: "object",
            description: product.description,
            properties: schemaFields(schema.format, schema.definition).map((f) => toProperty(f, product.keyFields, true)),
            ...(product.qualityRules && product.qualityRules.length > 0 ? { quality: qualityToContract(product.qualityRules) } : {}),
            customProperties: [
              { property: KAPPA_PROPERTIES.schemaFormat, value: format },
              { property: KAPPA_PROPERTIES.schemaVersion, value: schema.version },
              { property: KAPPA_PROPERTIES.schema, value: physicalSchema(schema.definition) },
              ...(product.encryptPii === true || (product.encryptPii === false && hasEncryptableFields(schema.format, schema.definition))
                ? [
                    {
                      property: KAPPA_PROPERTIES.encryptPii,
                      value: product.encryptPii,
                      description: "Field-level encryption of the fields classified pii: producers encrypt them with the domain's key (Schema Registry ENCRYPT rule), only PII-approved subscribers decrypt. Changes through review, like the quality rules.",
                    },
                  ]
                : []),
              ...(product.derived
                ? [{ property: KAPPA_PROPERTIES.derivedStatement, value: product.derived.statement, description: "The Flink SQL statement that computes this topic; its output schema is `schema`." }]
                : []),
            ],
          },
        ]
      : [],
    slaProperties: [
      { property: "latency", value: product.freshnessSeconds, unit: "s", description: "Freshness: the newest record is at most this old." },
      { property: "availability", value: product.availabilityPct, unit: "%" },
      retentionSla(product.retentionMs),
    ],
    servers: [
      {
        server: "kafka",
        type: "kafka",
        host: options.bootstrap,
        format: format === "avro" ? "avro" : "json",
        description: `Topic ${product.topicName}`,
        customProperties: [{ property: "topic", value: product.topicName }],
      },
    ],
    support: [{ channel: "email", url: `mailto:${product.contactEmail}`, tool: "email", scope: "issues" }],
    team: { name: product.domain.name, members: product.owners.map((o) => ({ username: o.email, name: o.name, role: "owner" })) },
    roles: [
      { role: `${product.domain.slug}-producer`, access: "write", description: "The domain's producer service account (SCRAM); created by the platform on approval." },
      { role: "subscriber", access: "read", firstLevelApprovers: approvers, description: "Service accounts with an approved subscription: READ on the topic and on consumer groups `<account>.*`." },
    ],
    customProperties: custom,
    contractCreatedTs: new Date(product.createdAt).toISOString(),
  };
  return contract;
}
