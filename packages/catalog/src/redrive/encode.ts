/// <reference path="../avsc-types.d.ts" />
import avroTypes from "avsc/lib/types.js";
import { confluentFrame, utf8Text } from "../records/wire.ts";

/*
 * The value a redriven dead letter carries into the product topic. A DLQ
 * action writes one of two things: the serialized record (Confluent wire
 * format — magic byte 0, schema id, payload), which goes back unchanged; or,
 * for a record that failed a rule before it was serialized (the rules run
 * inside the serializer), the record as JSON text. Consumers of the product
 * topic read the wire format, so JSON text is serialized with the product's
 * newest approved schema and framed with its registry id — as Confluent's
 * serializer (avsc for Avro; the JSON text itself for JSON Schema) would have
 * written it. A value that is neither, or that does not fit the schema, is
 * not sent: it would break every consumer.
 */

export interface RedriveSchema {
  format: "AVRO" | "JSON_SCHEMA";
  definition: string;
  /** The registry id of the version (the four bytes after the magic byte). */
  schemaId: number;
}

export type RedriveValue = { ok: true; value: Buffer | null; reencoded: boolean } | { ok: false; reason: string };

const avroCache = new Map<string, ReturnType<typeof avroTypes.Type.forSchema>>();

function frame(schemaId: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(0, 0);
  head.writeUInt32BE(schemaId, 1);
  return Buffer.concat([head, payload]);
}

export function redriveValue(value: Buffer | null, schema: RedriveSchema | null): RedriveValue {
  // A tombstone stays one.
  if (value === null) return { ok: true, value: null, reencoded: false };
  if (confluentFrame(value)) return { ok: true, value, reencoded: false };
  const text = utf8Text(value);
  let parsed: unknown;
  try {
    parsed = text === null ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) return { ok: false, reason: "the value is neither in the registry's wire format nor JSON text" };
  if (!schema) return { ok: false, reason: "the product has no approved schema to serialize the JSON text with" };
  if (schema.format === "JSON_SCHEMA") return { ok: true, value: frame(schema.schemaId, Buffer.from(JSON.stringify(parsed))), reencoded: true };
  let type = avroCache.get(schema.definition);
  if (!type) {
    type = avroTypes.Type.forSchema(JSON.parse(schema.definition));
    if (avroCache.size > 100) avroCache.clear();
    avroCache.set(schema.definition, type);
  }
  try {
    return { ok: true, value: frame(schema.schemaId, type.toBuffer(parsed)), reencoded: true };
  } catch {
    // avsc's message quotes the offending value: not repeated here (the reasons are shown to governance, who reads no records).
    return { ok: false, reason: "the JSON text does not fit the product's schema" };
  }
}
