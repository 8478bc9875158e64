import "server-only";
import { env } from "@/env";

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined;

function get(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The client's address for per-address throttling, or null when unknown. With
 * KAPPA_TRUSTED_PROXY_HOPS = n > 0 it is the n-th X-Forwarded-For entry from
 * the right (the one our own proxies appended); otherwise the TCP peer, as
 * recorded by peer-address.cjs. Never a value the client alone chose.
 */
export function clientAddress(headers: HeaderSource): string | null {
  const e = env();
  if (e.KAPPA_TRUSTED_PROXY_HOPS > 0) {
    const entries = (get(headers, "x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
    const entry = entries[entries.length - e.KAPPA_TRUSTED_PROXY_HOPS];
    if (entry) return normalise(entry);
  }
  if (!e.KAPPA_PEER_ADDRESS_HEADER) return null;
  const peer = get(headers, e.KAPPA_PEER_ADDRESS_HEADER);
  return peer ? normalise(peer) : null;
}

/** "::ffff:127.0.0.1" and "127.0.0.1" are one client; at most 64 characters are kept. */
function normalise(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "").slice(0, 64);
}
