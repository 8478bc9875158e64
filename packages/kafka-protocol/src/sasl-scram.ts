/*
 * The client side of SASL/SCRAM (RFC 5802, RFC 7677) as Kafka uses it:
 * no channel binding ("n,,"), user names with "=" and "," escaped as "=3D"
 * and "=2C". Pure message codec and key derivation, no I/O: a connection
 * sends `first.message`, answers the server-first with `final(...)`, and
 * checks the server-final with `verifyServer`.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

export type ScramMechanism = "SCRAM-SHA-256" | "SCRAM-SHA-512";

export interface ScramClient {
  /** client-first-message */
  first: Buffer;
  /** client-final-message for the server-first-message; throws when the server's message is not acceptable. */
  final(serverFirst: Buffer): Buffer;
  /** Mutual authentication: the server proves it knows the password's server key. Throws when it does not. */
  verifyServer(serverFinal: Buffer): void;
}

export function scramClient(mechanism: ScramMechanism, username: string, password: string, nonce = randomBytes(24).toString("base64url")): ScramClient {
  const hash = mechanism === "SCRAM-SHA-512" ? "sha512" : "sha256";
  const keyLength = mechanism === "SCRAM-SHA-512" ? 64 : 32;
  const hmac = (key: Buffer, text: string) => createHmac(hash, key).update(text, "utf8").digest();
  const clientFirstBare = `n=${username.replace(/=/g, "=3D").replace(/,/g, "=2C")},r=${nonce}`;
  let expectedServerSignature: Buffer | null = null;
  return {
    first: Buffer.from(`n,,${clientFirstBare}`, "utf8"),
    final(serverFirstBytes) {
      const serverFirst = serverFirstBytes.toString("utf8");
      const attrs = new Map(serverFirst.split(",").map((part) => [part.slice(0, 1), part.slice(2)] as const));
      const combined = attrs.get("r");
      const salt = attrs.get("s");
      const iterations = Number(attrs.get("i"));
      if (!combined?.startsWith(nonce) || !salt || !Number.isInteger(iterations) || iterations < 4096) {
        throw new Error("SCRAM: unexpected server-first message");
      }
      const salted = pbkdf2Sync(password, Buffer.from(salt, "base64"), iterations, keyLength, hash);
      const clientKey = hmac(salted, "Client Key");
      const storedKey = createHash(hash).update(clientKey).digest();
      const withoutProof = `c=biws,r=${combined}`;
      const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.alloc(clientKey.length);
      for (let i = 0; i < proof.length; i++) proof[i] = (clientKey[i] ?? 0) ^ (signature[i] ?? 0);
      expectedServerSignature = hmac(hmac(salted, "Server Key"), authMessage);
      return Buffer.from(`${withoutProof},p=${proof.toString("base64")}`, "utf8");
    },
    verifyServer(serverFinalBytes) {
      const verifier = /(?:^|,)v=([^,]+)/.exec(serverFinalBytes.toString("utf8"))?.[1];
      const given = verifier ? Buffer.from(verifier, "base64") : Buffer.alloc(0);
      if (!expectedServerSignature || given.length !== expectedServerSignature.length || !timingSafeEqual(given, expectedServerSignature)) {
        throw new Error("SCRAM: the server's signature does not match");
      }
    },
  };
}
