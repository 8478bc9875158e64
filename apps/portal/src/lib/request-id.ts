/** Set by the proxy on every request and response; error bodies and server logs carry the same id. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * A request id the client (or a proxy in front) sent is kept when it looks
 * like one — letters, digits and `._:-`, at most 128 — so one id follows a
 * call from the caller's log through the portal, the catalog (audit events,
 * provisioning tasks) and the worker; anything else gets a fresh UUID.
 * It is a correlation id only: nothing trusts it.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(incoming: string | null): string {
  return incoming !== null && REQUEST_ID_PATTERN.test(incoming) ? incoming : crypto.randomUUID();
}
