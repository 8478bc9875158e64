/*
 * Flink SQL table definitions generated from the catalog: an input product
 * becomes a Kafka-connector table named by its topic (`orders.order-events.v1`,
 * quoted), its columns from the approved schema, its watermark from its
 * event-time field; and the planner's result types become the derived
 * product's JSON Schema. Pure text, no I/O.
 */
import type { SchemaField } from "../schema/fields.ts";

/** Quotes a Flink SQL identifier: backticks, a backtick inside doubled. */
export function quoteIdentifier(name: string): string {
  return "`" + name.replace(/`/g, "``") + "`";
}

/** Quotes a Flink SQL string literal: single quotes, a quote inside doubled. */
export function quoteLiteral(value: string): string {
  return "'" + value.replace(/'/g, "''") + "'";
}

/**
 * The Flink SQL type of a schema field (NOT NULL when the schema requires it), as the input's format reads it. An
 * instant is TIMESTAMP_LTZ, except in Avro: Flink's `avro-confluent` format maps Avro's timestamp-millis/-micros only to
 * TIMESTAMP (its "legacy" mapping, which that format cannot turn off), the instant's UTC wall-clock time.
 */
export function flinkType(field: Pick<SchemaField, "logicalType" | "physicalType" | "required" | "children" | "items">, nullable = !field.required, format: "AVRO" | "JSON_SCHEMA" = "JSON_SCHEMA"): string {
  const base = baseType(field, format);
  return nullable ? base : `${base} NOT NULL`;
}

function baseType(field: Pick<SchemaField, "logicalType" | "physicalType" | "children" | "items">, format: "AVRO" | "JSON_SCHEMA"): string {
  switch (field.logicalType) {
    case "string":
      return "STRING";
    case "boolean":
      return "BOOLEAN";
    case "integer":
      return field.physicalType === "int" ? "INT" : "BIGINT";
    case "number":
      return field.physicalType === "float" ? "FLOAT" : "DOUBLE";
    case "date":
      return "DATE";
    case "time":
      return "TIME(3)";
    case "timestamp":
      return `${format === "AVRO" ? "TIMESTAMP" : "TIMESTAMP_LTZ"}(${/micros/.test(field.physicalType) ? 6 : 3})`;
    case "object":
      return field.children.length === 0 ? "MAP<STRING, STRING>" : `ROW<${field.children.map((c) => `${quoteIdentifier(c.name)} ${flinkType(c, !c.required, format)}`).join(", ")}>`;
    case "array": {
      const items = field.items ?? { logicalType: "string" as const, physicalType: "string" };
      const item = items.logicalType === "object" ? `ROW<${field.children.map((c) => `${quoteIdentifier(c.name)} ${flinkType(c, !c.required, format)}`).join(", ")}>` : baseType({ ...items, children: [] }, format);
      return `ARRAY<${item}>`;
    }
  }
}

/** The event-time field of an input: its first top-level timestamp field (the watermark follows it). */
export function eventTimeField(fields: SchemaField[]): SchemaField | null {
  return fields.find((f) => f.logicalType === "timestamp") ?? null;
}

export interface KafkaConnection {
  bootstrap: string;
  /** SASL login of the job's service account (SCRAM-SHA-512); none for validation, which connects nowhere. */
  sasl?: { username: string; password: string; mechanism?: "SCRAM-SHA-512" | "SCRAM-SHA-256" | "PLAIN" };
  /**
   * The Schema Registry Avro inputs are read through (`avro-confluent`): the portal's `/api/schema-registry` as Flink
   * reaches it. A job logs in to it with its Kafka login (`sasl`), Basic auth, as the registry takes a service account.
   */
  registryUrl?: string;
}

/** Where an Avro input's schemas are fetched when no registry URL is configured: the portal's default address. */
export const DEFAULT_REGISTRY_URL = "http://127.0.0.1:3000/api/schema-registry";

export interface InputTable {
  topicName: string;
  format: "AVRO" | "JSON_SCHEMA";
  fields: SchemaField[];
}

/** How late an event may arrive behind the newest one seen before its window closes. */
export const WATERMARK_DELAY_SECONDS = 5;

/** The flink-sql-connector-kafka jar relocates Kafka's client: its login modules live under this prefix. */
const SHADED_KAFKA = "org.apache.flink.kafka.shaded.org.apache.kafka";

function connectionOptions(connection: KafkaConnection): [string, string][] {
  const options: [string, string][] = [["properties.bootstrap.servers", connection.bootstrap]];
  if (connection.sasl) {
    const mechanism = connection.sasl.mechanism ?? "SCRAM-SHA-512";
    const module = mechanism === "PLAIN" ? `${SHADED_KAFKA}.common.security.plain.PlainLoginModule` : `${SHADED_KAFKA}.common.security.scram.ScramLoginModule`;
    // JAAS quotes: the names and passwords the platform issues hold no quote or backslash; refuse any that would.
    for (const v of [connection.sasl.username, connection.sasl.password]) if (/["\\\n;]/.test(v)) throw new Error("a Kafka login for Flink may not hold quotes, backslashes, semicolons or newlines");
    options.push(["properties.security.protocol", "SASL_PLAINTEXT"], ["properties.sasl.mechanism", mechanism], ["properties.sasl.jaas.config", `${module} required username="${connection.sasl.username}" password="${connection.sasl.password}";`]);
  }
  return options;
}

/**
 * An input's format: JSON, or Avro in Confluent's wire format (magic byte, the writer's schema id, Avro binary), the
 * writer's schema fetched by id from the registry and read into the table's columns by Avro's schema resolution.
 */
function formatOptions(format: "AVRO" | "JSON_SCHEMA", connection: KafkaConnection): [string, string][] {
  if (format !== "AVRO") return [["format", "json"], ["json.timestamp-format.standard", "ISO-8601"]];
  const options: [string, string][] = [
    ["format", "avro-confluent"],
    ["avro-confluent.url", connection.registryUrl ?? DEFAULT_REGISTRY_URL],
  ];
  if (connection.sasl) {
    // Confluent's client splits USER_INFO at the first colon: a user name holding one would log in as someone else.
    if (connection.sasl.username.includes(":")) throw new Error("a Schema Registry login for Flink may not hold a colon in its user name");
    options.push(["avro-confluent.basic-auth.credentials-source", "USER_INFO"], ["avro-confluent.basic-auth.user-info", `${connection.sasl.username}:${connection.sasl.password}`]);
  }
  return options;
}

function withClause(options: [string, string][]): string {
  return `WITH (\n${options.map(([k, v]) => `  ${quoteLiteral(k)} = ${quoteLiteral(v)}`).join(",\n")}\n)`;
}

/**
 * Where a job without restored state starts reading an input: its earliest
 * offset (history by replay from the log), or the first record at or after an
 * instant (Kafka's ListOffsets by timestamp; the Kafka connector's
 * `scan.startup.mode` = `timestamp` with `scan.startup.timestamp-millis`), or
 * the offsets the job's consumer group committed (`group-offsets`: a new
 * statement that could not restore the old job's savepoint goes on from there).
 */
export type StartupPosition = { mode: "earliest-offset" } | { mode: "timestamp"; millis: number } | { mode: "group-offsets" };

function startupOptions(startup: StartupPosition): [string, string][] {
  if (startup.mode === "earliest-offset") return [["scan.startup.mode", "earliest-offset"]];
  // The offsets the job's consumer group committed (Flink commits them with each completed checkpoint or savepoint);
  // a partition without one (an input the job did not read before) from its earliest offset.
  if (startup.mode === "group-offsets") return [["scan.startup.mode", "group-offsets"], ["properties.auto.offset.reset", "earliest"]];
  if (!Number.isSafeInteger(startup.millis) || startup.millis < 0) throw new Error(`a startup timestamp must be milliseconds since the epoch, not ${startup.millis}`);
  return [
    ["scan.startup.mode", "timestamp"],
    ["scan.startup.timestamp-millis", String(startup.millis)],
  ];
}

/**
 * `CREATE TEMPORARY TABLE` for an input product: read from its topic's earliest offset unless told otherwise,
 * committed records only (`isolation.level` = `read_committed`; Kafka's consumer default reads records of aborted
 * transactions too, e.g. of another derived product's exactly-once sink).
 */
export function inputTableDdl(input: InputTable, connection: KafkaConnection, groupId?: string, startup: StartupPosition = { mode: "earliest-offset" }): string {
  const columns = input.fields.map((f) => `  ${quoteIdentifier(f.name)} ${flinkType(f, !f.required, input.format)}`);
  const eventTime = eventTimeField(input.fields);
  if (eventTime) columns.push(`  WATERMARK FOR ${quoteIdentifier(eventTime.name)} AS ${quoteIdentifier(eventTime.name)} - INTERVAL '${WATERMARK_DELAY_SECONDS}' SECOND`);
  const options: [string, string][] = [["connector", "kafka"], ["topic", input.topicName], ...connectionOptions(connection), ...formatOptions(input.format, connection), ...startupOptions(startup), ["properties.isolation.level", "read_committed"], ...(groupId ? ([["properties.group.id", groupId]] as [string, string][]) : [])];
  return `CREATE TEMPORARY TABLE ${quoteIdentifier(input.topicName)} (\n${columns.join(",\n")}\n) ${withClause(options)}`;
}

export interface OutputColumn {
  name: string;
  /** Flink's type as DESCRIBE prints it, without the time-attribute marker (`TIMESTAMP_LTZ(3) NOT NULL`). */
  type: string;
}

/** `CREATE TEMPORARY TABLE` for the derived product's own topic: JSON, exactly-once through Kafka transactions. */
export function outputTableDdl(name: string, topicName: string, columns: OutputColumn[], connection: KafkaConnection, transactionalIdPrefix?: string): string {
  const options: [string, string][] = [
    ["connector", "kafka"],
    ["topic", topicName],
    ...connectionOptions(connection),
    ["format", "json"],
    ["json.timestamp-format.standard", "ISO-8601"],
    ["sink.delivery-guarantee", transactionalIdPrefix ? "exactly-once" : "at-least-once"],
    ...(transactionalIdPrefix
      ? ([
          ["sink.transactional-id-prefix", transactionalIdPrefix],
          // Kafka's transaction.max.timeout.ms defaults to 15 minutes; Flink's producer asks for an hour unless told.
          ["properties.transaction.timeout.ms", "600000"],
        ] as [string, string][])
      : []),
  ];
  return `CREATE TEMPORARY TABLE ${quoteIdentifier(name)} (\n${columns.map((c) => `  ${quoteIdentifier(c.name)} ${c.type}`).join(",\n")}\n) ${withClause(options)}`;
}

/** DESCRIBE's type text without the time-attribute marker: `TIMESTAMP(3) *ROWTIME*` → `TIMESTAMP(3)`. */
export function plainType(described: string): string {
  return described.replace(/\s*\*(ROWTIME|PROCTIME)\*/g, "").trim();
}

type JsonSchema = Record<string, unknown>;

/**
 * A Flink SQL type (as DESCRIBE prints it) as JSON Schema — how the JSON
 * format writes it (timestamps as ISO-8601 text). `x-flink-type` keeps the
 * planner's exact type beside it.
 */
export function jsonSchemaForType(type: string): { schema: JsonSchema; nullable: boolean } {
  const text = plainType(type);
  const nullable = !/\sNOT NULL$/.test(text);
  const bare = text.replace(/\sNOT NULL$/, "").trim();
  const upper = bare.toUpperCase();
  let schema: JsonSchema;
  if (/^(VARCHAR|CHAR|STRING)\b/.test(upper)) schema = { type: "string" };
  else if (/^(TINYINT|SMALLINT|INT|INTEGER|BIGINT)\b/.test(upper)) schema = { type: "integer" };
  else if (/^(FLOAT|DOUBLE|REAL|DECIMAL|NUMERIC)\b/.test(upper)) schema = { type: "number" };
  else if (upper === "BOOLEAN") schema = { type: "boolean" };
  else if (upper.startsWith("DATE")) schema = { type: "string", format: "date" };
  else if (/^TIMESTAMP_LTZ|^TIMESTAMP\(\d+\) WITH LOCAL TIME ZONE/.test(upper)) schema = { type: "string", format: "date-time" };
  else if (/^TIMESTAMP/.test(upper)) schema = { type: "string", description: "ISO-8601 date and time without a zone offset (UTC)" };
  else if (/^TIME\b/.test(upper)) schema = { type: "string", format: "time" };
  else if (/^(BINARY|VARBINARY|BYTES)\b/.test(upper)) schema = { type: "string", contentEncoding: "base64" };
  else if (upper.startsWith("ARRAY<") || upper.startsWith("MULTISET<")) {
    const inner = bare.slice(bare.indexOf("<") + 1, bare.lastIndexOf(">"));
    const item = jsonSchemaForType(inner);
    schema = { type: "array", items: item.nullable ? { anyOf: [item.schema, { type: "null" }] } : item.schema };
  } else if (upper.startsWith("ROW<")) {
    schema = objectSchema(splitTopLevel(bare.slice(4, bare.lastIndexOf(">"))).map(rowField));
  } else if (upper.startsWith("MAP<")) {
    const [, value] = splitTopLevel(bare.slice(4, bare.lastIndexOf(">")));
    const v = jsonSchemaForType(value ?? "STRING");
    schema = { type: "object", additionalProperties: v.nullable ? { anyOf: [v.schema, { type: "null" }] } : v.schema };
  } else schema = {};
  return { schema: { ...schema, "x-flink-type": bare }, nullable };
}

function rowField(part: string): OutputColumn {
  const m = /^\s*(`(?:[^`]|``)+`|\S+)\s+([\s\S]+)$/.exec(part);
  if (!m) return { name: part.trim(), type: "STRING" };
  const name = m[1]!.startsWith("`") ? m[1]!.slice(1, -1).replace(/``/g, "`") : m[1]!;
  // A row field may carry a comment: `name` TYPE 'comment'
  return { name, type: m[2]!.replace(/\s+'(?:[^']|'')*'\s*$/, "").trim() };
}

/** Splits `a INT, b ROW<c INT, d STRING>` at its top-level commas. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "`" || ch === "'") quote = ch;
    else if (ch === "<" || ch === "(") depth++;
    else if (ch === ">" || ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.slice(start).trim()) parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

function objectSchema(columns: OutputColumn[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const c of columns) {
    const { schema, nullable } = jsonSchemaForType(c.type);
    properties[c.name] = nullable ? { anyOf: [schema, { type: "null" }] } : schema;
    if (!nullable) required.push(c.name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

/** The derived product's schema: a JSON Schema object of the statement's result columns. */
export function outputJsonSchema(columns: OutputColumn[], title?: string): JsonSchema {
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...(title ? { title } : {}), ...objectSchema(columns) };
}

/** The output columns back from a derived product's schema (outputJsonSchema's inverse): `x-flink-type`, NOT NULL when required. */
export function columnsFromOutputSchema(definition: string): OutputColumn[] {
  const schema = JSON.parse(definition) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const anyOf = property.anyOf as JsonSchema[] | undefined;
    const typed = anyOf ? anyOf.find((s) => typeof s["x-flink-type"] === "string") : property;
    const type = typed?.["x-flink-type"];
    if (typeof type !== "string") throw new Error(`The derived schema's property ${name} carries no x-flink-type.`);
    return { name, type: required.has(name) ? `${type} NOT NULL` : type };
  });
}
