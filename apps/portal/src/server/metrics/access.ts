/*
 * Who may read /api/metrics: an API token of a platform admin carrying the
 * `admin` scope, or — without any Authorization header — a request whose TCP
 * peer is loopback (Prometheus on the same host), as peer-address.cjs records
 * it. X-Forwarded-For is never believed for this, and loopback is not enough
 * when the request was forwarded: with KAPPA_TRUSTED_PROXY_HOPS > 0 the portal
 * sits behind a proxy whose own loopback connection would otherwise let the
 * whole internet in, and a request carrying a forwarding header naming
 * another address came through a proxy on this host.
 */
import { UnauthenticatedError, type Actor } from "@kappa/catalog";

export type MetricsAccess = { ok: true; via: "token" | "loopback" } | { ok: false; status: 401 | 403; message: string };

export interface AccessInput {
  headers: Headers;
  /** The header peer-address.cjs writes the TCP peer into (KAPPA_PEER_ADDRESS_HEADER); null when the portal runs without it. */
  peerHeader: string | null;
  trustedProxyHops: number;
  /** The actor of a bearer token; throws (UnauthenticatedError) for an unknown, expired or revoked one. */
  authenticate: (token: string) => Promise<Actor>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

export function isLoopback(address: string | null | undefined): boolean {
  return !!address && LOOPBACK.test(address.trim());
}

export async function metricsAccess(input: AccessInput): Promise<MetricsAccess> {
  const { headers } = input;
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const bearer = /^Bearer[ ]+([^\s]+)$/i.exec(authorization.trim());
    if (!bearer?.[1]) return { ok: false, status: 401, message: "Send an admin API token as Authorization: Bearer <token>." };
    let actor: Actor;
    try {
      actor = await input.authenticate(bearer[1]);
    } catch (error) {
      // Only a refused token is a 401; a database that cannot answer is not the caller's fault (errorResponse: 503/500).
      if (error instanceof UnauthenticatedError) return { ok: false, status: 401, message: "The API token is unknown, expired or revoked." };
      throw error;
    }
    if (actor.globalRole === "ADMIN" && (actor.token?.scopes ?? []).includes("admin")) return { ok: true, via: "token" };
    return { ok: false, status: 403, message: "Metrics are for platform admins: use a token of an admin with the admin scope." };
  }
  const peer = input.peerHeader ? headers.get(input.peerHeader) : null;
  const forwarded = [
    ...(headers.get("x-forwarded-for") ?? "").split(","),
    ...(headers.get("x-real-ip") ?? "").split(","),
  ]
    .map((s) => s.trim())
    .filter(Boolean);
  const viaProxy = input.trustedProxyHops > 0 || headers.has("forwarded") || forwarded.some((a) => !isLoopback(a));
  if (isLoopback(peer) && !viaProxy) return { ok: true, via: "loopback" };
  return { ok: false, status: 401, message: "Metrics need an admin API token (Authorization: Bearer <token>), or a request from this host's loopback." };
}
