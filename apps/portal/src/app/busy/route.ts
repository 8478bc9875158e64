import { OVERLOAD_RETRY_AFTER_SECONDS } from "@kappa/catalog";
import { busyResponse, overloadedFor } from "@/lib/busy";

/** Where a page that hit an overload sends the browser: 503 + Retry-After, then back (src/lib/busy.ts). */
export function GET(request: Request): Response {
  return busyResponse(new URL(request.url).searchParams.get("next") ?? "/", Math.max(overloadedFor(), OVERLOAD_RETRY_AFTER_SECONDS));
}
