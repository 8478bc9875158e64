import "server-only";
import { headers } from "next/headers";
import { asOverload, CatalogError, jsonTextDepth, MAX_NESTING_DEPTH, nestingMessage, OVERLOAD_RETRY_AFTER_SECONDS, OverloadedError, toJson, ValidationError } from "@kappa/catalog";
import { markOverloaded } from "@/lib/busy";
import { MAX_BODY_BYTES, tooLarge } from "@/lib/request-guard";
import { REQUEST_ID_HEADER } from "@/lib/request-id";
import { API_CACHE_CONTROL } from "@/lib/security-headers";

/** Every API error has this body; `fields` maps form fields to messages; `requestId` is what to quote to an operator. */
export interface ApiErrorBody {
  error: { code: string; message: string; fields?: Record<string, string[]>; requestId?: string; policy?: unknown; [detail: string]: unknown };
}

/** A refusal made by the portal itself (not the catalog): body too large, wrong media type. */
export class HttpError extends Error {
  constructor(
    readonly status: 413 | 415,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** The id the proxy gave this request (a fresh one if the proxy did not run, e.g. in a test). */
export async function requestId(): Promise<string> {
  try {
    return (await headers()).get(REQUEST_ID_HEADER) ?? crypto.randomUUID();
  } catch {
    return crypto.randomUUID();
  }
}

/**
 * Maps a refusal to its HTTP status. Anything unexpected is a 500 whose body
 * says nothing internal (no Prisma or driver text, no stack): the cause is
 * logged under the request id, and the body carries only that id.
 */
export async function errorResponse(thrown: unknown): Promise<Response> {
  // A saturated database pool is a 503 with Retry-After, never a 500.
  const error = asOverload(thrown);
  // Pages shed load for as long (src/lib/busy.ts): the pool is the same.
  if (error instanceof OverloadedError) markOverloaded(OVERLOAD_RETRY_AFTER_SECONDS);
  const id = await requestId();
  const reply = (body: ApiErrorBody, status: number, extra: Record<string, string> = {}) =>
    Response.json(body, { status, headers: { [REQUEST_ID_HEADER]: id, "cache-control": API_CACHE_CONTROL, ...extra } });
  if (error instanceof CatalogError) {
    // `details`: structured refusals (policy rules, schema incompatibilities) spread into the body.
    const retryAfter = error.status === 429 || error.status === 503 ? error.details?.retryAfterSeconds : undefined;
    return reply(
      { error: { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}), ...(error.details ?? {}), requestId: id } },
      error.status,
      typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : {},
    );
  }
  if (error instanceof HttpError) return reply({ error: { code: error.code, message: error.message, requestId: id } }, error.status);
  console.error(`[api] request ${id}: unexpected error`, error);
  return reply({ error: { code: "INTERNAL", message: `Something went wrong on our side; try again. If it persists, quote request id ${id}.`, requestId: id } }, 500);
}

/**
 * Reads a JSON body, at most MAX_BODY_BYTES of it: the read stops (413) as
 * soon as more arrives, whatever Content-Length claimed, so a client cannot
 * make the portal buffer a 10 MB body. Malformed JSON is the client's mistake
 * (400), not ours; so is a body nested more than MAX_NESTING_DEPTH levels,
 * refused before it is parsed or validated (issue 30, finding 10).
 */
export async function readJson(request: Request): Promise<unknown> {
  const text = await readBoundedText(request, MAX_BODY_BYTES);
  if (text.trim() === "") return {};
  if (jsonTextDepth(text) > MAX_NESTING_DEPTH) throw new ValidationError(nestingMessage("The request body"), { _: [nestingMessage("The request body")] });
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError("The request body is not valid JSON.");
  }
}

export async function readBoundedText(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      const refusal = tooLarge();
      throw new HttpError(413, refusal.code, refusal.message);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

/** Query string → plain object for the catalog's zod schemas. */
export function queryObject(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}

/** A JSON API answer (not stored, not compressed by the portal: see API_CACHE_CONTROL). */
export function json(value: unknown, status = 200): Response {
  return Response.json(toJson(value), { status, headers: { "cache-control": API_CACHE_CONTROL } });
}

/** 503 for a feature this deployment has not configured (e.g. no KAPPA_SECRETS_KEY). */
export function notConfigured(message: string): Response {
  const body: ApiErrorBody = { error: { code: "NOT_CONFIGURED", message } };
  return Response.json(body, { status: 503, headers: { "cache-control": API_CACHE_CONTROL } });
}
