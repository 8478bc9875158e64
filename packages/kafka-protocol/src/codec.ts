/**
 * The message registry: Kafka's own JSON message definitions
 * (src/generated/definitions.ts, generated from definitions/*.json) by API
 * key, their version ranges and header versions, and the public
 * encode/decode entry points, which compile each (message, version) plan on
 * first use (message-plan.ts) and walk it (plan-codec.ts).
 */
import type { FieldDefinition, MessageDefinition } from "./definition-types.ts";
import { parseVersions } from "./definition-types.ts";
import { ProtocolError } from "./errors.ts";
import { definitions } from "./generated/definitions.ts";
import { compileStruct, type StructPlan, type WireBody } from "./message-plan.ts";
import { readStruct, writeStruct } from "./plan-codec.ts";
import type { Reader } from "./reader.ts";
import type { Writer } from "./writer.ts";

export type { WireBody };

// ---------------------------------------------------------------- registry

export type MessageKind = "request" | "response";

interface ApiEntry {
  readonly name: string;
  readonly request: MessageDefinition;
  readonly response: MessageDefinition;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** First flexible version of the request (Infinity when none). */
  readonly firstFlexibleRequest: number;
  readonly firstFlexibleResponse: number;
  readonly requestPlans: (StructPlan | undefined)[];
  readonly responsePlans: (StructPlan | undefined)[];
}

const apis: (ApiEntry | undefined)[] = [];

function commonStructs(def: MessageDefinition): Map<string, readonly FieldDefinition[]> {
  return new Map((def.commonStructs ?? []).map((s) => [s.name, s.fields]));
}

function firstFlexible(def: MessageDefinition): number {
  const r = parseVersions(def.flexibleVersions);
  return r.min > r.max ? Number.POSITIVE_INFINITY : r.min;
}

{
  const byKey = new Map<number, { request?: MessageDefinition; response?: MessageDefinition }>();
  for (const d of definitions) {
    if ((d.type !== "request" && d.type !== "response") || d.apiKey === undefined) continue;
    const e = byKey.get(d.apiKey) ?? {};
    e[d.type] = d;
    byKey.set(d.apiKey, e);
  }
  for (const [key, e] of byKey) {
    if (e.request === undefined || e.response === undefined) throw new Error(`API ${key} lacks a request or response definition`);
    const range = parseVersions(e.request.validVersions);
    apis[key] = {
      name: e.request.name.replace(/Request$/, ""),
      request: e.request,
      response: e.response,
      minVersion: range.min,
      maxVersion: range.max,
      firstFlexibleRequest: firstFlexible(e.request),
      firstFlexibleResponse: firstFlexible(e.response),
      requestPlans: [],
      responsePlans: [],
    };
  }
}

function api(apiKey: number): ApiEntry {
  const e = apis[apiKey];
  if (e === undefined) throw new UnsupportedVersionError(apiKey, -1, `unknown API key ${apiKey}`);
  return e;
}

/** Thrown when asked to encode or decode an API key or version that the definitions do not contain. */
export class UnsupportedVersionError extends ProtocolError {
  constructor(
    readonly apiKey: number,
    readonly apiVersion: number,
    message = `API ${apiKey} version ${apiVersion} is not in the message definitions`,
  ) {
    super(message);
  }
}

function plan(apiKey: number, version: number, kind: MessageKind): StructPlan {
  const e = api(apiKey);
  if (!Number.isInteger(version) || version < e.minVersion || version > e.maxVersion) {
    throw new UnsupportedVersionError(apiKey, version, `${e.name} version ${version} is outside ${e.minVersion}-${e.maxVersion}`);
  }
  const plans = kind === "request" ? e.requestPlans : e.responsePlans;
  let p = plans[version];
  if (p === undefined) {
    const def = kind === "request" ? e.request : e.response;
    const flexible = version >= (kind === "request" ? e.firstFlexibleRequest : e.firstFlexibleResponse);
    p = compileStruct(def.name, def.fields, version, flexible, commonStructs(def));
    plans[version] = p;
  }
  return p;
}

/** The parsed Kafka definition (validVersions, flexibleVersions, fields; without the "about" prose). */
export function messageDefinition(apiKey: number, kind: MessageKind): MessageDefinition {
  const e = api(apiKey);
  return kind === "request" ? e.request : e.response;
}

/** Name of an API ("Produce") or `Unknown(<key>)`. */
export function apiName(apiKey: number): string {
  return apis[apiKey]?.name ?? `Unknown(${apiKey})`;
}

/** The version range in the definitions (validVersions), or null for an unknown key. */
export function apiVersionRange(apiKey: number): { min: number; max: number } | null {
  const e = apis[apiKey];
  return e === undefined ? null : { min: e.minVersion, max: e.maxVersion };
}

/** API keys present in the definitions, ascending. */
export function apiKeys(): number[] {
  const out: number[] = [];
  apis.forEach((e, k) => {
    if (e !== undefined) out.push(k);
  });
  return out;
}

/** Decodes a message body of the given API/version from the reader's position. */
export function decodeBody(apiKey: number, apiVersion: number, kind: MessageKind, r: Reader): WireBody {
  return readStruct(r, plan(apiKey, apiVersion, kind));
}

/** Encodes a message body; absent properties take the definition's default. */
export function encodeBody(apiKey: number, apiVersion: number, kind: MessageKind, w: Writer, body: object): void {
  writeStruct(w, plan(apiKey, apiVersion, kind), body as WireBody);
}

// ---------------------------------------------------------------- headers

/**
 * Request header version: v2 (with tagged fields) from the API's first
 * flexible version, else v1. ControlledShutdown v0 alone used v0 (no client id).
 * Unknown API keys are assumed to use v1.
 */
export function requestHeaderVersion(apiKey: number, apiVersion: number): 0 | 1 | 2 {
  if (apiKey === 7 && apiVersion === 0) return 0;
  const e = apis[apiKey];
  return e !== undefined && apiVersion >= e.firstFlexibleRequest ? 2 : 1;
}

/**
 * Response header version: v1 (with tagged fields) for flexible versions,
 * except ApiVersions, whose responses always use v0 so that a client can
 * parse the header whatever version it asked for.
 */
export function responseHeaderVersion(apiKey: number, apiVersion: number): 0 | 1 {
  if (apiKey === 18) return 0;
  const e = apis[apiKey];
  return e !== undefined && apiVersion >= e.firstFlexibleResponse ? 1 : 0;
}
