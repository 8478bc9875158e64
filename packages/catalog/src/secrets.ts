import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/*
 * Issued passwords are never stored in plaintext. Between issue (by the worker)
 * and the owner's one-time pickup (through the portal) they live
 * AES-256-GCM-encrypted under KAPPA_SECRETS_KEY; the catalog keeps only a
 * scrypt hash after that. Both sides seal and open with these functions, so
 * the format has one definition.
 */

const VERSION = "v1";

/** 32 random bytes as base64url: 256 bits, safe in JAAS configs and shell snippets (no quotes, no `=`). */
export function generatePassword(): string {
  return randomBytes(32).toString("base64url");
}

/** A 32-byte AES-256 key from base64 (44 chars) or hex (64 chars). */
export function parseSecretsKey(raw: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  if (key.length !== 32) throw new Error(`must be 32 bytes (base64 or hex); got ${key.length} bytes`);
  return key;
}

/** `v1:<iv>:<tag>:<ciphertext>`; the associated data binds it to one account so a ciphertext cannot be moved to another row. */
export function encryptSecret(key: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

export function decryptSecret(key: Buffer, sealed: string, associatedData: string): string {
  const [version, iv, tag, body] = sealed.split(":");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error("Unrecognised secret format.");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAAD(Buffer.from(associatedData, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}
