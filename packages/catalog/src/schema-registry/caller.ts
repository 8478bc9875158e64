import { createHash, timingSafeEqual } from "node:crypto";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { verifyPassword } from "../passwords.ts";
import { RegistryError } from "./registry-errors.ts";

/**
 * Who calls the registry API: a service account with its Kafka credentials
 * (what Schema Registry clients in producers and consumers send as HTTP
 * Basic), or a signed-in user (session or API token).
 */
export type RegistryCaller =
  | { kind: "serviceAccount"; account: { id: string; name: string; domainId: string; isProducer: boolean } }
  | { kind: "user"; actor: Actor };

/*
 * A client sends its password with every request, and scrypt costs tens of
 * milliseconds by design. A verified (name, password) pair is remembered as a
 * SHA-256 digest next to the stored hash it matched: the stored hash is read
 * on every request, so a rotated or removed credential stops working at once;
 * only the scrypt step is skipped for a pair already proven against that hash.
 */
const CACHE_LIMIT = 1024;
const CACHE_TTL_MS = 5 * 60_000;
const verified = new Map<string, { digest: Buffer; secretHash: string; at: number }>();

function digestOf(name: string, password: string): Buffer {
  return createHash("sha256").update(`${name}\u0000${password}`).digest();
}

/** A service account by its Kafka user name and password; throws 401 otherwise. */
export async function authenticateServiceAccount(db: Db, name: string, password: string, now = Date.now()) {
  const account = await db.serviceAccount.findUnique({
    where: { name },
    select: { id: true, name: true, domainId: true, isProducer: true, secretHash: true },
  });
  if (!account?.secretHash) throw new RegistryError("UNAUTHORIZED", "Unauthorized: unknown service account or wrong password.");
  const digest = digestOf(name, password);
  const cached = verified.get(name);
  const fresh = cached && cached.secretHash === account.secretHash && now - cached.at < CACHE_TTL_MS && timingSafeEqual(cached.digest, digest);
  if (!fresh) {
    if (!(await verifyPassword(password, account.secretHash))) throw new RegistryError("UNAUTHORIZED", "Unauthorized: unknown service account or wrong password.");
    verified.delete(name);
    verified.set(name, { digest, secretHash: account.secretHash, at: now });
    if (verified.size > CACHE_LIMIT) {
      const oldest = verified.keys().next().value;
      if (oldest !== undefined) verified.delete(oldest);
    }
  }
  const { secretHash: _secret, ...rest } = account;
  return rest;
}

/** Splits `Basic base64(user:password)`; null when the header is another scheme. */
export function parseBasicAuthorization(header: string): { username: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
