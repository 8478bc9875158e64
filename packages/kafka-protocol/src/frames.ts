/**
 * Whole Kafka frames: `int32 size` + header + body.
 *
 * Request header (RequestHeader.json): api_key int16, api_version int16,
 * correlation_id int32, client_id NULLABLE_STRING (v1+), TAGGED_FIELDS (v2).
 * client_id keeps its classic int16 length even in v2 so that any broker can
 * read the header of an ApiVersions request of any version.
 * Response header (ResponseHeader.json): correlation_id int32, TAGGED_FIELDS (v1).
 */
import { decodeBody, encodeBody, requestHeaderVersion, responseHeaderVersion } from "./codec.ts";
import type { RequestBodies, ResponseBodies } from "./generated/messages.ts";
import { Reader } from "./reader.ts";
import { Writer } from "./writer.ts";

export type ApiKeyWithBody = keyof RequestBodies & keyof ResponseBodies;

/** Recursively optional, for encoder input: every absent property takes its default. */
export type DeepPartial<T> = T extends Uint8Array | bigint | number | string | boolean | null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? DeepPartial<U>[]
    : { [P in keyof T]?: DeepPartial<T[P]> };

export type RequestInput<K extends ApiKeyWithBody> = DeepPartial<RequestBodies[K]>;
export type ResponseInput<K extends ApiKeyWithBody> = DeepPartial<ResponseBodies[K]>;

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

export interface DecodedRequestHeader extends RequestHeader {
  /** 0, 1 or 2 (see RequestHeader.json). */
  headerVersion: number;
  /** Bytes of the frame taken by the header: the body starts here. */
  headerLength: number;
}

/** A decoded request, discriminated on `apiKey` so a `switch` narrows `body`. */
export type DecodedRequest = {
  [K in ApiKeyWithBody]: { apiKey: K; header: DecodedRequestHeader; body: RequestBodies[K] };
}[ApiKeyWithBody];

/**
 * Reads the request header of a frame (the bytes after the size prefix).
 * Works for any API key and version, including ones the codec does not
 * support, so the broker can still answer UNSUPPORTED_VERSION with the
 * right correlation id.
 */
export function decodeRequestHeader(frame: Buffer): DecodedRequestHeader {
  const r = new Reader(frame);
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const headerVersion = requestHeaderVersion(apiKey, apiVersion);
  const clientId = headerVersion >= 1 ? r.nullableString() : null;
  if (headerVersion >= 2) r.taggedFields();
  return { apiKey, apiVersion, correlationId, clientId, headerVersion, headerLength: r.offset };
}

/**
 * Decodes header and body. Throws UnsupportedVersionError (a ProtocolError)
 * for an API key or version outside the definitions, ProtocolError for
 * malformed bytes. Bytes and records fields are views into `frame` (no copy).
 * Trailing bytes after the body are ignored, as Kafka does.
 */
export function decodeRequest(frame: Buffer): DecodedRequest {
  const header = decodeRequestHeader(frame);
  const r = new Reader(frame, header.headerLength);
  const body = decodeBody(header.apiKey, header.apiVersion, "request", r);
  return typedRequest(header, body);
}

function typedRequest(header: DecodedRequestHeader, body: object): DecodedRequest {
  // The body was produced from the definition of header.apiKey, which is what
  // the generated RequestBodies entry describes.
  return { apiKey: header.apiKey, header, body } as DecodedRequest;
}

/** Encodes a request frame, including the 4-byte size prefix. */
export function encodeRequest<K extends ApiKeyWithBody>(
  header: { apiKey: K; apiVersion: number; correlationId: number; clientId: string | null },
  body: RequestInput<K>,
): Buffer {
  const w = new Writer(256);
  w.int32(0);
  w.int16(header.apiKey);
  w.int16(header.apiVersion);
  w.int32(header.correlationId);
  const hv = requestHeaderVersion(header.apiKey, header.apiVersion);
  if (hv >= 1) w.nullableString(header.clientId);
  if (hv >= 2) w.emptyTaggedFields();
  encodeBody(header.apiKey, header.apiVersion, "request", w, body);
  w.int32At(0, w.offset - 4);
  return w.toBuffer();
}

/** Encodes a response frame, including the 4-byte size prefix. */
export function encodeResponse<K extends ApiKeyWithBody>(
  apiKey: K,
  apiVersion: number,
  correlationId: number,
  body: ResponseInput<K>,
): Buffer {
  const w = new Writer(256);
  writeResponse(w, apiKey, apiVersion, correlationId, body);
  return w.toBuffer();
}

/**
 * Encodes a response frame (with its size prefix) as parts: byte runs of at
 * least `referenceFrom` bytes in the body (a Fetch response's record batches)
 * are referred to, not copied — the caller writes the parts in order (e.g.
 * one writev) and must not change those bytes before.
 */
export function encodeResponseParts<K extends ApiKeyWithBody>(apiKey: K, apiVersion: number, correlationId: number, body: ResponseInput<K>, referenceFrom: number): Buffer[] {
  const w = new Writer(256, referenceFrom);
  writeResponse(w, apiKey, apiVersion, correlationId, body);
  return w.toBuffers();
}

function writeResponse<K extends ApiKeyWithBody>(w: Writer, apiKey: K, apiVersion: number, correlationId: number, body: ResponseInput<K>): void {
  w.int32(0);
  w.int32(correlationId);
  if (responseHeaderVersion(apiKey, apiVersion) >= 1) w.emptyTaggedFields();
  encodeBody(apiKey, apiVersion, "response", w, body);
  w.int32At(0, w.length - 4);
}

/** Decodes a response frame (the bytes after the size prefix). */
export function decodeResponse<K extends ApiKeyWithBody>(
  apiKey: K,
  apiVersion: number,
  frame: Buffer,
): { correlationId: number; body: ResponseBodies[K] } {
  const r = new Reader(frame);
  const correlationId = r.int32();
  if (responseHeaderVersion(apiKey, apiVersion) >= 1) r.taggedFields();
  const body: object = decodeBody(apiKey, apiVersion, "response", r);
  return { correlationId, body: body as ResponseBodies[K] };
}
