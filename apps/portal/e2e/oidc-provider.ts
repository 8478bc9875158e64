import type { Server } from "node:http";
import Provider from "oidc-provider";

/*
 * A real OpenID Connect provider (oidc-provider, a certified implementation)
 * on a loopback port, started by the SSO journey itself. The portal is
 * configured for it by playwright.config.ts (OIDC_ISSUER etc.); accounts and
 * their groups live here, so a test can change a user's groups between two
 * sign-ins exactly as a directory admin would. Its built-in login page accepts
 * any password: what is under test is the portal's side of the protocol.
 */
export const OIDC_CLIENT_ID = "kappa-portal-e2e";

export function oidcPort(): number {
  return Number(process.env.KAPPA_E2E_OIDC_PORT);
}

export interface TestIdentityProvider {
  issuer: string;
  setAccount(email: string, claims: { name: string; groups: string[] }): void;
  close(): Promise<void>;
}

export async function startIdentityProvider(portalUrl: string, clientSecret: string): Promise<TestIdentityProvider> {
  const issuer = `http://127.0.0.1:${oidcPort()}`;
  const accounts = new Map<string, { name: string; groups: string[] }>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [`${portalUrl}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    scopes: ["openid", "email", "profile", "groups"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    // Put the requested claims (groups among them) in the id token too, as
    // Keycloak or Entra ID do with a groups mapper; the portal also reads userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // Short-lived artifacts, as a provider for one test run should have.
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Grant: 3600, Interaction: 600, Session: 3600 },
    cookies: { keys: [clientSecret] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        // Read at each token and userinfo request: a changed group shows at the next sign-in.
        claims: async () => ({ sub: id, email: id, email_verified: true, name: account.name, groups: [...account.groups] }),
      };
    },
  });
  const server: Server = provider.listen(oidcPort());
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  return {
    issuer,
    setAccount: (email, claims) => accounts.set(email, claims),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
