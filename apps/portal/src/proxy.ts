import { NextResponse, type NextRequest } from "next/server";
import { METHOD_HEADER, PATH_HEADER } from "@/lib/request-path";

/**
 * Passes the requested path to server components, so the signed-in layout can
 * send an anonymous visitor to /signin and back to where they were going.
 * No auth decision is made here: every page and API call checks the session.
 */
export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  // Always overwritten here, so a client cannot choose what the server reads.
  headers.set(PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  headers.set(METHOD_HEADER, request.method);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // /api/v1 too: API-token requests are audited with their method and path.
  matcher: ["/api/v1/:path*", "/((?!api/|_next/|favicon.ico|icon.svg).*)"],
};
