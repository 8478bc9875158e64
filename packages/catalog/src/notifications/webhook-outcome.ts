/*
 * What a domain owner may learn from a webhook attempt (issue 30, finding 4).
 * Endpoints are typed in by owners, so the delivery log must not be a port
 * scanner of the platform's network: "socket hang up" vs "ECONNREFUSED" vs a
 * 401 vs the time it took told an owner which internal ports are open and
 * what answers there. An attempt is one of four outcomes, in demo mode too:
 * delivered, refused by the platform (the target is not allowed), failed with
 * HTTP n, timed out (no HTTP answer within the deadline — any transport
 * failure reads the same). The worker's log keeps the transport detail for
 * operators.
 */

export const WEBHOOK_REFUSED = "refused by the platform";
export const WEBHOOK_TIMED_OUT = "timed out";

/** The text an owner sees for one attempt (or a delivery's last one). */
export function webhookOutcome(statusCode: number | null, error: string | null): string {
  if (statusCode !== null) return statusCode >= 200 && statusCode < 300 ? "delivered" : `failed with HTTP ${statusCode}`;
  if (error === null) return "waiting";
  return error === WEBHOOK_REFUSED ? WEBHOOK_REFUSED : WEBHOOK_TIMED_OUT;
}

/** The error column of an attempt the worker records: null when delivered, else one of the owner-facing texts. */
export function webhookAttemptError(statusCode: number | null, refused: boolean): string | null {
  if (statusCode !== null) return statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`;
  return refused ? WEBHOOK_REFUSED : WEBHOOK_TIMED_OUT;
}
