import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { applySsoSignIn, authenticateWithThrottle, endSessions, groupsFromClaim, sessionVersionOf, SignInThrottledError } from "@kappa/catalog";
import { env, oidcEnabled } from "@/env";
import { requestContext } from "./actor";
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
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  [claim: string]: unknown;
}

/** The verified id token's claims (openid-client's TokenSet.claims(), checked by the callback before we get here). */
function idTokenClaims(tokens: Record<string, unknown>): OidcProfile {
  const claims = tokens.claims;
  if (typeof claims !== "function") throw new Error("the provider returned no id token");
  const value: unknown = claims.call(tokens);
  if (typeof value !== "object" || value === null || !("sub" in value) || typeof value.sub !== "string") throw new Error("the id token has no subject");
  return { ...value, sub: value.sub };
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
      authorization: { params: { scope: e.OIDC_SCOPE } },
      idToken: true,
      checks: ["pkce", "state", "nonce"],
      // The id token is verified (signature, issuer, audience, nonce) by
      // openid-client; providers differ in whether groups ride in it or only
      // in userinfo, so the profile is both, the id token winning for identity.
      userinfo: {
        async request({ tokens, client }) {
          const claims = idTokenClaims(tokens);
          const accessToken = tokens.access_token;
          if (typeof accessToken !== "string") return claims;
          const info: Record<string, unknown> | null = await client.userinfo(accessToken).catch(() => null);
          if (!info || info.sub !== claims.sub) return claims;
          const claim = e.OIDC_GROUPS_CLAIM;
          return { ...info, ...claims, [claim]: claims[claim] ?? info[claim] };
        },
      },
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
            if (error instanceof SignInThrottledError) throw new Error(`${SIGN_IN_ERRORS.throttled}-${error.retryAfterSeconds}`, { cause: error });
            throw unavailable("password check", error);
          }
        },
      }),
      ...oidcProvider(),
    ],
    events: {
      // Sign-out ends the session server-side too: a copy of the cookie stops working (issue 30, finding 13).
      async signOut({ token }) {
        const userId = (token as { sub?: unknown } | null)?.sub;
        if (typeof userId === "string" && userId !== "") await endSessions(db(), userId);
      },
    },
    callbacks: {
      async signIn({ account, user, profile }) {
        // An SSO login without an e-mail cannot be matched to a catalog user;
        // one the provider says is unverified must not be (account takeover).
        if (account?.provider === "oidc") {
          const verified = (profile as OidcProfile | undefined)?.email_verified;
          return typeof user.email === "string" && user.email.length > 0 && verified !== false;
        }
        return true;
      },
      async jwt({ token, account, user, profile }) {
        if (account?.provider === "oidc" && user.email) {
          // Each sign-in re-applies the group mapping; the token's subject
          // becomes our user id, not the provider's.
          try {
            const groups = groupsFromClaim((profile as OidcProfile | undefined)?.[env().OIDC_GROUPS_CLAIM]);
            const local = await applySsoSignIn(db(), { email: user.email, name: user.name ?? "", groups }, await requestContext());
            token.sub = local.id;
          } catch (error) {
            throw unavailable("single sign-on sign-in", error);
          }
        }
        // At sign-in: the session carries the user's session version; sign-out and role removals bump it (server/actor.ts refuses older ones).
        if (user && typeof token.sub === "string") {
          try {
            token.sv = await sessionVersionOf(db(), token.sub);
          } catch (error) {
            throw unavailable("session version", error);
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
