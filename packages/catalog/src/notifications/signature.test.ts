import { describe, expect, it } from "vitest";
import { generateWebhookSecret, signWebhook, verifyWebhookSignature } from "./signature.ts";

describe("webhook signatures", () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ kind: "subscription.approved", id: "e1" });
  const now = 1_760_000_000_000;
  const t = Math.floor(now / 1000);

  it("verifies what it signs", () => {
    expect(verifyWebhookSignature(secret, signWebhook(secret, t, body), body, { now })).toBe(true);
  });

  it("pins the format: t=<seconds>,v1=<hex HMAC-SHA256 of `t.body`> (value from openssl dgst -sha256 -hmac)", () => {
    expect(signWebhook("k", 1, "{}")).toBe("t=1,v1=3dd49b2593d0f9a349e9e71c4bde3e2b862c2be4003fe9b4ba81332029310158");
  });

  it("refuses a changed body, another secret, a stale timestamp and garbage", () => {
    const header = signWebhook(secret, t, body);
    expect(verifyWebhookSignature(secret, header, body + " ", { now })).toBe(false);
    expect(verifyWebhookSignature(generateWebhookSecret(), header, body, { now })).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, { now: now + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(secret, "t=abc,v1=00", body, { now })).toBe(false);
    expect(verifyWebhookSignature(secret, null, body, { now })).toBe(false);
  });

  it("accepts any matching v1 entry (secret rotation)", () => {
    const header = `${signWebhook(secret, t, body)},v1=${"0".repeat(64)}`;
    expect(verifyWebhookSignature(secret, header, body, { now })).toBe(true);
  });
});
