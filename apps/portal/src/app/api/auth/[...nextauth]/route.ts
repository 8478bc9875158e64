import NextAuth from "next-auth";
import { authOptions } from "@/server/auth";

type Context = { params: Promise<{ nextauth: string[] }> };

// Built per request from lazily-parsed options, so `next build` needs no secrets.
async function handler(request: Request, context: Context): Promise<Response> {
  const route = NextAuth(authOptions()) as (req: Request, ctx: Context) => Promise<Response>;
  return route(request, context);
}

export { handler as GET, handler as POST };
