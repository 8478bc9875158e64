import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/*
 * The MCP session id, signed instead of stored. The portal serves MCP
 * statelessly (any portal process answers any request; nothing is kept in
 * memory between requests), but the audit log must name the client that
 * `initialize` introduced on every later tool call. So the id we hand back at
 * `initialize` (Mcp-Session-Id, which the client must send on every later
 * request) carries the client's declared name and version and the id of the
 * API token it came with, under an HMAC: a client cannot pose as another
 * client name without re-initialising, and an id is worth nothing with
 * another token. It is not a secret and grants nothing — the token still
 * authenticates every request.
 */

export interface McpSession {
  /** `<name> <version>` from initialize's clientInfo, bounded and without control characters. */
  client: string;
  /** The API token the session was opened with. */
  tokenId: string;
}

const VERSION = "v1";
const MAX_CLIENT_TEXT = 100;

// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** The client as the audit log shows it: name and version, each bounded, control characters removed. */
export function clientLabel(info: { name?: unknown; version?: unknown } | undefined): string {
  const part = (v: unknown) => (typeof v === "string" ? v.replace(CONTROL, "").trim().slice(0, MAX_CLIENT_TEXT) : "");
  const name = part(info?.name) || "unknown-client";
  const version = part(info?.version);
  return version ? `${name} ${version}` : name;
}

/** The key is derived from the portal's secret, so it is not the key that signs session cookies. */
function keyOf(secret: string): Buffer {
  return createHash("sha256").update(`kappa-mcp-session\0${secret}`, "utf8").digest();
}

function mac(secret: string, payload: string): string {
  return createHmac("sha256", keyOf(secret)).update(payload, "utf8").digest("base64url");
}

export function signSession(secret: string, session: McpSession): string {
  const payload = Buffer.from(JSON.stringify({ c: session.client, t: session.tokenId }), "utf8").toString("base64url");
  return `${VERSION}.${payload}.${mac(secret, `${VERSION}.${payload}`)}`;
}

/** The session an id names, or null when it is malformed, forged, or was opened with another token. */
export function verifySession(secret: string, id: string | null, tokenId: string): McpSession | null {
  if (!id || id.length > 1024) return null;
  const [version, payload, signature, ...rest] = id.split(".");
  if (version !== VERSION || !payload || !signature || rest.length > 0) return null;
  const expected = Buffer.from(mac(secret, `${version}.${payload}`), "utf8");
  const given = Buffer.from(signature, "utf8");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null || !("c" in value) || !("t" in value)) return null;
    const { c, t } = value;
    if (typeof c !== "string" || typeof t !== "string" || t !== tokenId) return null;
    return { client: c, tokenId: t };
  } catch {
    return null;
  }
}
