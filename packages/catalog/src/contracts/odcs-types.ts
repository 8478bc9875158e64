/*
 * The subset of ODCS v3.1.0 that Kappa Mesh writes and reads. The vendored
 * JSON Schema (odcs/) is the full definition; these types only describe what
 * our mapping touches. Unknown ODCS fields in an imported file are allowed by
 * the schema and ignored by the mapping.
 */

export const ODCS_API_VERSION = "v3.1.0";

/** Names of our customProperties (camelCase, as ODCS asks). */
export const KAPPA_PROPERTIES = {
  classification: "classification",
  partitions: "partitions",
  cleanupPolicy: "cleanupPolicy",
  tieredStorage: "tieredStorage",
  localRetentionMs: "localRetentionMs",
  compatibilityMode: "compatibilityMode",
  majorVersion: "majorVersion",
  kappaStatus: "kappaStatus",
  schemaFormat: "schemaFormat",
  schemaVersion: "schemaVersion",
  schema: "schema",
  /** On the schema object of a derived product: the Flink SQL statement that computes the topic. */
  derivedStatement: "derivedStatement",
  /** On the schema object: field-level encryption of the fields it classifies PII (issue 29), true or false. */
  encryptPii: "encryptPii",
} as const;

export interface OdcsCustomProperty {
  property: string;
  value: unknown;
  description?: string;
}

export interface OdcsProperty {
  name: string;
  logicalType?: string;
  physicalType?: string;
  required?: boolean;
  description?: string;
  classification?: string;
  primaryKey?: boolean;
  primaryKeyPosition?: number;
  properties?: OdcsProperty[];
  items?: { logicalType?: string; physicalType?: string; properties?: OdcsProperty[] };
}

/** One ODCS data-quality check; Kappa Mesh reads and writes `custom` checks with engine `cel` (quality-section.ts). */
export interface OdcsQuality {
  name?: string;
  description?: string;
  type?: string;
  engine?: string;
  implementation?: unknown;
  customProperties?: OdcsCustomProperty[];
}

export interface OdcsSchemaObject {
  name: string;
  physicalName?: string;
  physicalType?: string;
  logicalType?: "object";
  description?: string;
  properties?: OdcsProperty[];
  quality?: OdcsQuality[];
  customProperties?: OdcsCustomProperty[];
}

export interface OdcsSlaProperty {
  property: string;
  value: string | number | boolean | null;
  unit?: string;
  description?: string;
}

export interface OdcsContract {
  apiVersion: string;
  kind: "DataContract";
  id: string;
  name?: string;
  version: string;
  status: string;
  domain?: string;
  dataProduct?: string;
  description?: { purpose?: string; usage?: string; limitations?: string };
  tags?: string[];
  schema?: OdcsSchemaObject[];
  slaProperties?: OdcsSlaProperty[];
  servers?: { server: string; type: string; host?: string; format?: string; description?: string; customProperties?: OdcsCustomProperty[] }[];
  support?: { channel: string; url?: string; tool?: string; scope?: string }[];
  team?: { name?: string; members?: { username: string; name?: string; role?: string }[] };
  roles?: { role: string; access?: string; description?: string; firstLevelApprovers?: string; secondLevelApprovers?: string }[];
  customProperties?: OdcsCustomProperty[];
  contractCreatedTs?: string;
}
