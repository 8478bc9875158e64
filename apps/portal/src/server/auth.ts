import "server-only";
import { authenticateWithThrottle, SignInThrottledError, upsertSsoUser } from "@kappa/catalog";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { env, oidcEnabled } from "@/env";
import { clientAddress } from "./client-address";
import { db } from "./db";

/*
 * next-auth puts the message of an error thrown while signing in into the
 * redirect URL (`/signin?error=<message>`). Only these codes may reach it:
 * the cause of anything else (a database outage's driver text) is logged
 * under an id and never shown.
 */
export const SIGN_IN_ERRORS = { throttled: "Throttled", unavailable: "SignInUnavailable" } as const;

function unavailable(where: string, error: unknown): Error {
  console.error(`[auth] sign-in ${crypto.randomUUID()}: ${where} failed`, error);
  return new Error(SIGN_IN_ERRORS.unavailable);
}

declare module "next-auth" {
  interface Session {
    /** Our user id; everything else about the user is re-read per request. */
    userId: string;
  }
}

interface OidcProfile {
  sub: string;
  email?: string;
  name?: string;
  preferred_username?: string;
}

function oidcProvider(): OAuthConfig<OidcProfile>[] {
  const e = env();
  if (!oidcEnabled(e)) return [];
  return [
    {
      id: "oidc",
      name: e.OIDC_NAME,
      type: "oauth",
      wellKnown: `${e.OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: e.OIDC_CLIENT_ID,
      clientSecret: e.OIDC_CLIENT_SECRET,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile: (p) => ({ id: p.sub, email: p.email ?? null, name: p.name ?? p.preferred_username ?? p.email ?? p.sub }),
    },
  ];
}

let options: NextAuthOptions | undefined;

/** next-auth configuration, built on first use so `next build` needs no secrets. */
export function authOptions(): NextAuthOptions {
  options ??= {
    secret: env().NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: 8 * 3600 },
    pages: { signIn: "/signin", error: "/signin" },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "E-mail and password",
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          if (!credentials?.email || !credentials.password) return null;
          try {
            const user = await authenticateWithThrottle(db(), credentials.email, credentials.password, clientAddress(req?.headers));
            return user ? { id: user.id, email: user.email, name: user.name } : null;
          } catch (error) {
            // "Throttled-<seconds>": the form tells the user how long to wait.
            if (error instanceof SignInThrottledError) throw new Error(`${SIGN_IN_ERRORS.throttled}-${error.retryAfterSeconds}`);
            throw unavailable("password check", error);
          }
        },
      }),
      ...oidcProvider(),
    ],
    callbacks: {
      async signIn({ account, user }) {
        // An SSO login without a verified e-mail cannot be matched to a catalog user.
        if (account?.provider === "oidc") return typeof user.email === "string" && user.email.length > 0;
        return true;
      },
      async jwt({ token, account, user }) {
        if (account?.provider === "oidc" && user.email) {
          // The token's subject becomes our user id, not the provider's.
          try {
            const local = await upsertSsoUser(db(), user.email, user.name ?? user.email);
            token.sub = local.id;
          } catch (error) {
            throw unavailable("single sign-on user lookup", error);
          }
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, userId: token.sub ?? "" };
      },
    },
  };
  return options;
}
