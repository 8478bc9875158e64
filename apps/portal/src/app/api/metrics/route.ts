import { headers } from "next/headers";
import { authenticateApiToken, ForbiddenError, UnauthenticatedError } from "@kappa/catalog";
import { env } from "@/env";
import { METHOD_HEADER, PATH_HEADER } from "@/lib/request-path";
import { db } from "@/server/db";
import { errorResponse } from "@/server/http";
import { metricsAccess } from "@/server/metrics/access";
import { portalMetrics } from "@/server/metrics/registry";

export const dynamic = "force-dynamic";

/** Prometheus' scrape of the portal (src/server/metrics/): an admin API token, or a request from loopback (access.ts). */
export async function GET() {
  try {
    const h = await headers();
    const e = env();
    const access = await metricsAccess({
      headers: h,
      peerHeader: e.KAPPA_PEER_ADDRESS_HEADER ?? null,
      trustedProxyHops: e.KAPPA_TRUSTED_PROXY_HOPS,
      authenticate: (token) => authenticateApiToken(db(), token, { method: h.get(METHOD_HEADER) ?? "GET", path: h.get(PATH_HEADER) ?? "/api/metrics" }),
    });
    if (!access.ok) throw access.status === 401 ? new UnauthenticatedError(access.message) : new ForbiddenError(access.message);
    const { registry } = portalMetrics();
    return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType, "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
