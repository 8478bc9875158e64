import { pbkdf2Sync, randomBytes } from "node:crypto";

/*
 * The Kafka side of issued credentials: Kafka gets SCRAM credentials (salt +
 * salted password) from which it derives its keys, never the password. The
 * sealing of the password for its one-time pickup is the catalog's
 * (`@kappa/catalog` secrets), shared with the portal.
 */

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
