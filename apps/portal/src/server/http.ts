import "server-only";
import { asOverload, CatalogError, toJson, ValidationError } from "@kappa/catalog";

/** Every API error has this body; `fields` maps form fields to messages. */
export interface ApiErrorBody {
  error: { code: string; message: string; fields?: Record<string, string[]>; policy?: unknown; [detail: string]: unknown };
}

/** Maps a refusal from the catalog to its HTTP status; anything else is a 500 (logged with its cause). */
export function errorResponse(thrown: unknown): Response {
  // A saturated database pool is a 503 with Retry-After, never a 500.
  const error = asOverload(thrown);
  if (error instanceof CatalogError) {
    const body: ApiErrorBody = { error: { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}), ...(error.details ?? {}) } };
    const retryAfter = error.status === 429 || error.status === 503 ? error.details?.retryAfterSeconds : undefined;
    return Response.json(body, { status: error.status, headers: typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : undefined });
  }
  console.error("[api] unexpected error", error);
  const body: ApiErrorBody = { error: { code: "INTERNAL", message: "Something went wrong on our side; try again." } };
  return Response.json(body, { status: 500 });
}

/** Parses a JSON body; malformed JSON is the client's mistake (400), not ours. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError("The request body is not valid JSON.");
  }
}

/** Query string → plain object for the catalog's zod schemas. */
export function queryObject(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}

export function json(value: unknown, status = 200): Response {
  return Response.json(toJson(value), { status });
}

/** 503 for a feature this deployment has not configured (e.g. no KAPPA_SECRETS_KEY). */
export function notConfigured(message: string): Response {
  const body: ApiErrorBody = { error: { code: "NOT_CONFIGURED", message } };
  return Response.json(body, { status: 503, headers: { "cache-control": "no-store" } });
}
