import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, generatePassword, parseSecretsKey } from "./secrets.ts";

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

  it("reads a key as hex or base64 and refuses the wrong length", () => {
    expect(parseSecretsKey(key.toString("hex"))).toEqual(key);
    expect(parseSecretsKey(` ${key.toString("base64")}\n`)).toEqual(key);
    expect(() => parseSecretsKey(randomBytes(16).toString("base64"))).toThrow(/32 bytes/);
  });
});
