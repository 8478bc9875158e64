import "server-only";
import { authenticateServiceAccount, CatalogError, NotConfiguredError, parseSecretsKey, jsonTextDepth, MAX_NESTING_DEPTH, nestingMessage, parseBasicAuthorization, RegistryError, SignInThrottledError, type RegistryCaller } from "@kappa/catalog";
import { env } from "@/env";
import { MAX_BODY_BYTES } from "@/lib/request-guard";
import { currentActor } from "./actor";
import { clientAddress } from "./client-address";
import { db } from "./db";
import { HttpError, readBoundedText } from "./http";

/*
 * The Schema-Registry-compatible API at /api/schema-registry: Confluent's
 * content type and error bodies ({ error_code, message }), so unmodified
 * Schema Registry clients work. A request with an Authorization header is
 * authenticated by it alone — Basic with a service account's Kafka user name
 * and password, or Bearer with an API token — and cookies are ignored; without
 * one, the signed-in session counts (the portal's own pages and curl by hand).
 */

export const REGISTRY_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

const CHALLENGE = { "www-authenticate": 'Basic realm="Kappa Mesh Schema Registry", charset="UTF-8"' };

export async function registryCaller(request: Request): Promise<RegistryCaller> {
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const basic = parseBasicAuthorization(authorization);
    if (basic) return { kind: "serviceAccount", account: await authenticateServiceAccount(db(), basic.username, basic.password, clientAddress(request.headers)) };
    if (!/^Bearer[ ]/i.test(authorization.trim())) throw new RegistryError("UNAUTHORIZED", "Unauthorized: send Basic credentials (a service account's Kafka user name and password) or a Bearer API token.");
  }
  try {
    // currentActor reads the same Authorization header (Bearer) or, without one, the session.
    return { kind: "user", actor: await currentActor() };
  } catch (error) {
    if (error instanceof CatalogError && error.status === 401) throw new RegistryError("UNAUTHORIZED", `Unauthorized: ${error.message}`);
    throw error;
  }
}

export function registryJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": REGISTRY_CONTENT_TYPE } });
}

/** A schema as plain text (the `/schema` endpoints answer the schema itself, not a JSON envelope). */
export function registryText(schema: string): Response {
  return new Response(schema, { status: 200, headers: { "content-type": REGISTRY_CONTENT_TYPE } });
}

/** Confluent's error body; anything unexpected is its 50001 and logged with its cause. */
export function registryError(error: unknown): Response {
  if (error instanceof RegistryError) {
    return new Response(JSON.stringify({ error_code: error.errorCode, message: error.message }), {
      status: error.status,
      headers: { "content-type": REGISTRY_CONTENT_TYPE, ...(error.status === 401 ? CHALLENGE : {}) },
    });
  }
  if (error instanceof SignInThrottledError) {
    // Too many wrong passwords for this name or from this address: Confluent's 42901, and when to come back.
    return new Response(JSON.stringify({ error_code: 42901, message: error.message }), {
      status: 429,
      headers: { "content-type": REGISTRY_CONTENT_TYPE, "retry-after": String(error.retryAfterSeconds) },
    });
  }
  if (error instanceof CatalogError) {
    const code = error.status === 403 ? 40301 : error.status === 404 ? 40401 : error.status * 100 + 1;
    return new Response(JSON.stringify({ error_code: code, message: error.message }), { status: error.status, headers: { "content-type": REGISTRY_CONTENT_TYPE } });
  }
  console.error("[schema-registry] unexpected error", error);
  return new Response(JSON.stringify({ error_code: 50001, message: "Error in the backend data store" }), { status: 500, headers: { "content-type": REGISTRY_CONTENT_TYPE } });
}

/** A JSON body; malformed JSON is the client's mistake (Confluent answers 400 with error_code 400). */
export async function readRegistryBody(request: Request): Promise<unknown> {
  // Bounded like every API body (a chunked upload has no Content-Length for the guard to refuse).
  let text: string;
  try {
    text = await readBoundedText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof HttpError && error.status === 413) throw new RegistryError("PAYLOAD_TOO_LARGE", error.message);
    throw error;
  }
  if (jsonTextDepth(text) > MAX_NESTING_DEPTH) throw new RegistryError("BAD_REQUEST", nestingMessage("The request body"));
  try {
    return text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new RegistryError("BAD_REQUEST", "Unexpected character in the request body: it is not valid JSON.");
  }
}

/** Where the portal is, for messages that send a client to the review. */
export function portalUrl(): string {
  return env().NEXTAUTH_URL;
}

/** Confluent ids are positive 32-bit integers. */
export function parseSchemaId(raw: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
  return Number(raw);
}

/** The platform's secret store key (KAPPA_SECRETS_KEY): the DEK Registry's KEK secrets are sealed under it. */
export function registrySecretsKey(): Buffer {
  const key = env().KAPPA_SECRETS_KEY;
  if (!key) throw new NotConfiguredError("This portal has no KAPPA_SECRETS_KEY, so the DEK Registry cannot open its keys. Ask a platform admin to configure it.");
  return parseSecretsKey(key);
}
