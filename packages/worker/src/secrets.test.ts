import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, generatePassword, scramUpsertion } from "./secrets.ts";

describe("secrets", () => {
  const key = randomBytes(32);

  it("generates distinct 256-bit passwords safe in shell snippets", () => {
    const a = generatePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generatePassword()).not.toBe(a);
  });

  it("round-trips a sealed secret and never stores the plaintext", () => {
    const sealed = encryptSecret(key, "s3cret-value", "account-1");
    expect(sealed).not.toContain("s3cret");
    expect(decryptSecret(key, sealed, "account-1")).toBe("s3cret-value");
  });

  it("refuses a ciphertext moved to another account or decrypted with another key", () => {
    const sealed = encryptSecret(key, "x", "account-1");
    expect(() => decryptSecret(key, sealed, "account-2")).toThrow();
    expect(() => decryptSecret(randomBytes(32), sealed, "account-1")).toThrow();
  });

  it("produces SCRAM upsertions a broker can verify a client proof against (RFC 5802)", () => {
    const up = scramUpsertion("SCRAM-SHA-512", "pw");
    expect(up.iterations).toBe(8192);
    expect(up.saltedPassword).toEqual(pbkdf2Sync("pw", up.salt, 8192, 64, "sha512"));
    // StoredKey as the broker derives it equals what a client derives from the password.
    const storedKey = (salted: Buffer) => createHash("sha512").update(createHmac("sha512", salted).update("Client Key").digest()).digest();
    expect(storedKey(up.saltedPassword)).toEqual(storedKey(pbkdf2Sync("pw", up.salt, 8192, 64, "sha512")));
  });
});
