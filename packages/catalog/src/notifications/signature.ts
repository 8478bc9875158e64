import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/*
 * Webhook signatures: HMAC-SHA256 over `<unix seconds>.<raw body>` with the
 * endpoint's secret, sent as
 *
 *   X-Kappa-Signature: t=<unix seconds>,v1=<hex digest>
 *
 * Signing the timestamp with the body lets a receiver refuse replays of an
 * old delivery (compare t with its clock); several v1 entries may appear
 * while a secret is being rotated. Receivers verify with verifyWebhookSignature
 * or the three lines it takes in any language.
 */

export const SIGNATURE_HEADER = "x-kappa-signature";
export const EVENT_HEADER = "x-kappa-event";
export const DELIVERY_HEADER = "x-kappa-delivery";

/** A new endpoint secret: 32 random bytes, prefixed so it is recognisable in a vault. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac("sha256", secret).update(`${timestampSeconds}.${body}`, "utf8").digest("hex");
  return `t=${timestampSeconds},v1=${digest}`;
}

/** True when one v1 signature matches and the timestamp is within `toleranceSeconds` of now. */
export function verifyWebhookSignature(secret: string, header: string | null | undefined, body: string, options: { toleranceSeconds?: number; now?: number } = {}): boolean {
  if (!header) return false;
  const parts = header.split(",").map((p) => p.trim());
  const t = Number(parts.find((p) => p.startsWith("t="))?.slice(2));
  if (!Number.isInteger(t)) return false;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest("hex"), "utf8");
  return parts
    .filter((p) => p.startsWith("v1="))
    .some((p) => {
      const given = Buffer.from(p.slice(3), "utf8");
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
