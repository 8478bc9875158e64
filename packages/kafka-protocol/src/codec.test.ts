/**
 * Round trips for every version of every API in the definitions, request and
 * response, with bodies generated from the JSON definitions themselves
 * (tagged fields set and unset, nulls where a version allows them). The
 * sample generator below reads the raw definitions and applies the protocol
 * rules independently of the codec's compiled plans.
 */
import { describe, expect, it } from "vitest";
import { apiKeys, apiName, decodeBody, messageDefinition } from "./codec.ts";
import type { FieldDefinition, MessageDefinition } from "./definition-types.ts";
import { inRange, parseVersions, propertyName } from "./definition-types.ts";
import { ProtocolError } from "./errors.ts";
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse, type ApiKeyWithBody } from "./frames.ts";
import { Reader } from "./reader.ts";
import { ZERO_UUID } from "./uuid.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (rand: Rand, min: number, max: number) => min + Math.floor(rand() * (max - min + 1));

function randomScalar(type: string, rand: Rand): unknown {
  switch (type) {
    case "int8":
      return int(rand, -128, 127);
    case "int16":
      return int(rand, -32768, 32767);
    case "uint16":
      return int(rand, 0, 65535);
    case "int32":
      return int(rand, -2147483648, 2147483647);
    case "int64":
      return BigInt(int(rand, -2147483648, 2147483647)) * BigInt(int(rand, 0, 2 ** 31));
    case "float64":
      return (rand() - 0.5) * 1e6;
    case "bool":
      return rand() < 0.5;
    case "string": {
      const alphabet = ["a", "Z", "0", "-", "é", "€", "😀"];
      return Array.from({ length: int(rand, 0, 12) }, () => alphabet[int(rand, 0, alphabet.length - 1)]).join("");
    }
    case "bytes":
    case "records":
      return Buffer.from(Array.from({ length: int(rand, 0, 40) }, () => int(rand, 0, 255)));
    case "uuid":
      return Buffer.from(Array.from({ length: 16 }, () => int(rand, 0, 255))).toString("base64url");
    default:
      throw new Error(`not a scalar: ${type}`);
  }
}

interface Ctx {
  version: number;
  common: Map<string, FieldDefinition[]>;
  rand: Rand;
}

function structFields(f: FieldDefinition, ctx: Ctx): FieldDefinition[] | undefined {
  const base = f.type.replace(/^\[\]/, "");
  return f.fields ?? ctx.common.get(base);
}

/** The value a decoder must produce for a field that is absent (or an unset tagged field). */
function defaultOf(f: FieldDefinition, ctx: Ctx): unknown {
  if (f.default === "null" || f.type === "records") return null;
  if (f.type.startsWith("[]")) return [];
  const d = f.default;
  switch (f.type) {
    case "int8":
    case "int16":
    case "uint16":
    case "int32":
    case "float64":
      return d === undefined ? 0 : Number(d);
    case "int64":
      return d === undefined ? 0n : BigInt(d);
    case "bool":
      return d === true || d === "true";
    case "string":
      return d === undefined ? "" : String(d);
    case "bytes":
      return Buffer.alloc(0);
    case "uuid":
      return ZERO_UUID;
    default: {
      const fields = structFields(f, ctx)!;
      return Object.fromEntries(fields.map((g) => [propertyName(g.name), defaultOf(g, ctx)]));
    }
  }
}

function sampleStruct(fields: FieldDefinition[], ctx: Ctx, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const present = inRange(parseVersions(f.versions), ctx.version);
    const tagged = f.taggedVersions !== undefined && inRange(parseVersions(f.taggedVersions), ctx.version);
    if (!present || (tagged && ctx.rand() < 0.4)) out[propertyName(f.name)] = defaultOf(f, ctx);
    else out[propertyName(f.name)] = sampleValue(f, ctx, depth);
  }
  return out;
}

function sampleValue(f: FieldDefinition, ctx: Ctx, depth: number): unknown {
  const nullable = inRange(parseVersions(f.nullableVersions), ctx.version);
  if (nullable && ctx.rand() < 0.25) return null;
  const isArray = f.type.startsWith("[]");
  const base = isArray ? f.type.slice(2) : f.type;
  const fields = structFields(f, ctx);
  const one = () => (fields !== undefined ? sampleStruct(fields, ctx, depth + 1) : randomScalar(base, ctx.rand));
  if (isArray) return Array.from({ length: depth > 3 ? 0 : int(ctx.rand, 0, 3) }, one);
  return one();
}

function sampleBody(def: MessageDefinition, version: number, seed: number): Record<string, unknown> {
  const common = new Map((def.commonStructs ?? []).map((s) => [s.name, s.fields]));
  return sampleStruct(def.fields, { version, common, rand: rng(seed) }, 0);
}

function defaultBody(def: MessageDefinition, version: number): Record<string, unknown> {
  const common = new Map((def.commonStructs ?? []).map((s) => [s.name, s.fields]));
  const ctx: Ctx = { version, common, rand: rng(0) };
  return Object.fromEntries(def.fields.map((f) => [propertyName(f.name), defaultOf(f, ctx)]));
}

function versions(def: MessageDefinition): number[] {
  const r = parseVersions(def.validVersions);
  return Array.from({ length: r.max - r.min + 1 }, (_, i) => r.min + i);
}

const SEEDS = [1, 2, 3, 4];

function roundTripRequest(key: ApiKeyWithBody, version: number, body: Record<string, unknown>): void {
  const header = { apiKey: key, apiVersion: version, correlationId: 12345, clientId: "client" };
  const frame = encodeRequest(header, body);
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  const decoded = decodeRequest(frame.subarray(4));
  expect(decoded.header).toMatchObject({ apiKey: key, apiVersion: version, correlationId: 12345, clientId: "client" });
  expect(decoded.body).toEqual(body);
  // The body must consume the frame exactly, and re-encoding must give the same bytes.
  const r = new Reader(frame, 4 + decoded.header.headerLength);
  decodeBody(key, version, "request", r);
  expect(r.remaining()).toBe(0);
  expect(encodeRequest(header, decoded.body).equals(frame)).toBe(true);
}

function roundTripResponse(key: ApiKeyWithBody, version: number, body: Record<string, unknown>): void {
  const frame = encodeResponse(key, version, 777, body);
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  const decoded = decodeResponse(key, version, frame.subarray(4));
  expect(decoded.correlationId).toBe(777);
  expect(decoded.body).toEqual(body);
  expect(encodeResponse(key, version, 777, decoded.body).equals(frame)).toBe(true);
}

function isApiKey(k: number): k is ApiKeyWithBody {
  return apiKeys().includes(k);
}

describe("round trips for every API and version in the definitions", () => {
  const keys = apiKeys().filter(isApiKey);

  it("covers at least the APIs the broker and admin features need", () => {
    const names = keys.map(apiName);
    for (const n of ["Produce", "Fetch", "ListOffsets", "Metadata", "ApiVersions", "SaslAuthenticate", "DescribeCluster", "AlterUserScramCredentials"]) {
      expect(names).toContain(n);
    }
  });

  for (const key of keys) {
    const req = messageDefinition(key, "request");
    const res = messageDefinition(key, "response");
    describe(`${apiName(key)} (${key})`, () => {
      for (const v of versions(req)) {
        it(`v${v} request and response`, () => {
          for (const seed of SEEDS) {
            roundTripRequest(key, v, sampleBody(req, v, seed * 1000 + v));
            roundTripResponse(key, v, sampleBody(res, v, seed * 7919 + v));
          }
          // An empty body encodes every field's default and decodes back to it.
          const empty = encodeRequest({ apiKey: key, apiVersion: v, correlationId: 1, clientId: null }, {});
          expect(decodeRequest(empty.subarray(4)).body).toEqual(defaultBody(req, v));
          const emptyRes = encodeResponse(key, v, 1, {});
          expect(decodeResponse(key, v, emptyRes.subarray(4)).body).toEqual(defaultBody(res, v));
        });
      }
    });
  }
});

describe("every strict prefix of a frame is a ProtocolError", () => {
  for (const [key, v] of [
    [0, 3],
    [0, 9],
    [1, 11],
    [1, 16],
    [3, 12],
    [18, 3],
    [32, 4],
  ] as const) {
    it(`${apiName(key)} v${v}`, () => {
      for (const seed of [11, 12]) {
        const frame = encodeRequest({ apiKey: key, apiVersion: v, correlationId: 1, clientId: "c" }, sampleBody(messageDefinition(key, "request"), v, seed)).subarray(4);
        for (let n = 0; n < frame.length; n++) {
          expect(() => decodeRequest(frame.subarray(0, n)), `prefix ${n}/${frame.length}`).toThrow(ProtocolError);
        }
        const res = encodeResponse(key, v, 1, sampleBody(messageDefinition(key, "response"), v, seed)).subarray(4);
        for (let n = 0; n < res.length; n++) {
          expect(() => decodeResponse(key, v, res.subarray(0, n)), `prefix ${n}/${res.length}`).toThrow(ProtocolError);
        }
      }
    });
  }
});

describe("random corruption", () => {
  it("decoding mutated frames either succeeds or throws ProtocolError, nothing else", () => {
    const rand = rng(99);
    let failures = 0;
    for (let i = 0; i < 3000; i++) {
      const key = ([0, 1, 3, 18, 19, 32, 36] as const)[i % 7]!;
      const def = messageDefinition(key, "request");
      const vs = versions(def);
      const v = vs[i % vs.length]!;
      const frame = Buffer.from(encodeRequest({ apiKey: key, apiVersion: v, correlationId: 1, clientId: "c" }, sampleBody(def, v, i)).subarray(4));
      for (let k = 0; k < 3; k++) frame[8 + int(rand, 0, frame.length - 9)] = int(rand, 0, 255);
      try {
        decodeRequest(frame);
      } catch (err) {
        expect(err).toBeInstanceOf(ProtocolError);
        failures++;
      }
    }
    // Sanity: the mutations do hit length fields often enough to exercise the error paths.
    expect(failures).toBeGreaterThan(100);
  });
});
