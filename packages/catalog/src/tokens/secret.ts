import { createHash, randomBytes } from "node:crypto";

/** `kappa_` + 43 characters of base64url (256 random bits). */
export const TOKEN_PREFIX = "kappa_";
export const TOKEN_PATTERN = /^kappa_[A-Za-z0-9_-]{43}$/;

export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * SHA-256 is enough at rest: the secret has 256 random bits, so there is
 * nothing to brute-force (a slow password hash protects low-entropy input).
 * It also lets a request find its token by an index lookup on the hash.
 */
export function hashTokenSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** What lists show to recognise a token: `kappa_AbC1…`. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, TOKEN_PREFIX.length + 6);
}
