/**
 * The shape of Apache Kafka's JSON message definitions
 * (clients/src/main/resources/common/message/README.md in apache/kafka).
 * Shared by the generator script and the runtime interpreter.
 */

export interface FieldDefinition {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  /** Only RequestHeader.ClientId uses this: it stays a classic string even in flexible header v2. */
  flexibleVersions?: string;
  ignorable?: boolean;
  mapKey?: boolean;
  entityType?: string;
  zeroCopy?: boolean;
  about?: string;
  fields?: FieldDefinition[];
}

export interface StructDefinition {
  name: string;
  versions: string;
  fields: FieldDefinition[];
}

export interface MessageDefinition {
  apiKey?: number;
  type: "request" | "response" | "header" | "data";
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: FieldDefinition[];
  commonStructs?: StructDefinition[];
  listeners?: string[];
  latestVersionUnstable?: boolean;
  deprecatedVersions?: string;
}

/** Inclusive version range; `none` is represented as min > max. */
export interface VersionRange {
  min: number;
  max: number;
}

const NONE: VersionRange = { min: 1, max: 0 };

/** Parses Kafka's version syntax: "3", "0-4", "2+", "none". */
export function parseVersions(spec: string | undefined): VersionRange {
  if (spec === undefined || spec === "none" || spec === "") return NONE;
  const plus = /^(\d+)\+$/.exec(spec);
  if (plus) return { min: Number(plus[1]), max: Number.MAX_SAFE_INTEGER };
  const range = /^(\d+)-(\d+)$/.exec(spec);
  if (range) return { min: Number(range[1]), max: Number(range[2]) };
  if (/^\d+$/.test(spec)) return { min: Number(spec), max: Number(spec) };
  throw new Error(`invalid version spec ${JSON.stringify(spec)}`);
}

export function inRange(range: VersionRange, version: number): boolean {
  return version >= range.min && version <= range.max;
}

/**
 * Kafka's definition files are JSON with `//` line comments. Strips them
 * outside string literals only, so URLs inside "about" texts survive.
 */
export function stripJsonComments(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") {
        out += text[i + 1] ?? "";
        i++;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else {
      out += c;
    }
  }
  return out;
}

/** `TopicName` → `topicName`: the body property names (only the first letter changes, as in Kafka's generator). */
export function propertyName(fieldName: string): string {
  return fieldName.charAt(0).toLowerCase() + fieldName.slice(1);
}
