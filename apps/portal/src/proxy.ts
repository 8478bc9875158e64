import { NextResponse, type NextRequest } from "next/server";
import { PATH_HEADER } from "@/lib/request-path";

/**
 * Passes the requested path to server components, so the signed-in layout can
 * send an anonymous visitor to /signin and back to where they were going.
 * No auth decision is made here: every page and API call checks the session.
 */
export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  matcher: ["/((?!api/|_next/|favicon.ico|icon.svg).*)"],
};
