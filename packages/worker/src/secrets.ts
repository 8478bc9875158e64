import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from "node:crypto";

/*
 * Issued passwords are never stored in plaintext. Between issue and the owner's
 * one-time pickup they live AES-256-GCM-encrypted under KAPPA_SECRETS_KEY; the
 * catalog keeps only a scrypt hash after that. Kafka itself gets SCRAM
 * credentials (salt + salted password), from which it derives its keys.
 */

const VERSION = "v1";

/** 32 random bytes as base64url: 256 bits, safe in JAAS configs and shell snippets (no quotes, no `=`). */
export function generatePassword(): string {
  return randomBytes(32).toString("base64url");
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

export type ScramMechanism = "SCRAM-SHA-256" | "SCRAM-SHA-512";

/** Kafka's ScramMechanism codes in AlterUserScramCredentials. */
export const SCRAM_MECHANISM_CODE: Record<ScramMechanism, number> = { "SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2 };

/** Iterations used for every credential we create: within Kafka's 4096–16384. */
export const SCRAM_ITERATIONS = 8192;

/**
 * What AlterUserScramCredentials carries (RFC 5802 SaltedPassword =
 * Hi(password, salt, i) = PBKDF2-HMAC-H): the broker derives StoredKey and
 * ServerKey from it and never sees the password.
 */
export function scramUpsertion(mechanism: ScramMechanism, password: string, iterations = SCRAM_ITERATIONS): { salt: Buffer; saltedPassword: Buffer; iterations: number } {
  const salt = randomBytes(32);
  const digest = mechanism === "SCRAM-SHA-512" ? "sha512" : "sha256";
  const length = mechanism === "SCRAM-SHA-512" ? 64 : 32;
  return { salt, saltedPassword: pbkdf2Sync(password, salt, iterations, length, digest), iterations };
}
