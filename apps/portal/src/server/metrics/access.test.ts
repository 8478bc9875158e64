import { describe, expect, it } from "vitest";
import { UnauthenticatedError, type Actor } from "@kappa/catalog";
import { metricsAccess } from "./access";

const PEER = "x-kappa-peer-0123456789abcdef";

function actor(globalRole: Actor["globalRole"], scopes: string[]): Actor {
  return { id: "u1", email: "u@example.test", name: "U", globalRole, memberships: [], token: { id: "t1", name: "t", scopes } };
}

/** Tokens: "admin" → an admin with the admin scope, "admin-read" → an admin whose token lacks it, "owner" → a domain owner; anything else is unknown. */
const authenticate = async (token: string): Promise<Actor> => {
  if (token === "admin") return actor("ADMIN", ["read", "admin"]);
  if (token === "admin-read") return actor("ADMIN", ["read"]);
  if (token === "owner") return actor("USER", ["read", "write:orders"]);
  throw new UnauthenticatedError();
};

const ask = (headers: Record<string, string>, options: { peerHeader?: string | null; hops?: number } = {}) =>
  metricsAccess({ headers: new Headers(headers), peerHeader: options.peerHeader === undefined ? PEER : options.peerHeader, trustedProxyHops: options.hops ?? 0, authenticate });

describe("who may read /api/metrics", () => {
  it("an admin's token with the admin scope, from anywhere", async () => {
    expect(await ask({ authorization: "Bearer admin", [PEER]: "203.0.113.9" })).toEqual({ ok: true, via: "token" });
  });

  it("refuses a non-admin token with 403, even from loopback, and an admin token without the admin scope", async () => {
    expect(await ask({ authorization: "Bearer owner", [PEER]: "127.0.0.1" })).toMatchObject({ ok: false, status: 403 });
    expect(await ask({ authorization: "Bearer admin-read", [PEER]: "203.0.113.9" })).toMatchObject({ ok: false, status: 403 });
  });

  it("refuses an unknown token and a malformed Authorization header with 401", async () => {
    expect(await ask({ authorization: "Bearer nope", [PEER]: "127.0.0.1" })).toMatchObject({ ok: false, status: 401 });
    expect(await ask({ authorization: "Basic YTpi", [PEER]: "127.0.0.1" })).toMatchObject({ ok: false, status: 401 });
  });

  it("lets a failure to check the token (database down) through instead of calling it the caller's fault", async () => {
    const down = metricsAccess({ headers: new Headers({ authorization: "Bearer admin" }), peerHeader: PEER, trustedProxyHops: 0, authenticate: () => Promise.reject(new Error("connection refused")) });
    await expect(down).rejects.toThrow("connection refused");
  });

  it("admits a request without a token only when the TCP peer is loopback and nothing says it was forwarded", async () => {
    expect(await ask({ [PEER]: "127.0.0.1" })).toEqual({ ok: true, via: "loopback" });
    expect(await ask({ [PEER]: "::1", "x-forwarded-for": "::1" })).toEqual({ ok: true, via: "loopback" });
    expect(await ask({ [PEER]: "::ffff:127.0.0.1" })).toEqual({ ok: true, via: "loopback" });
    // Another host.
    expect(await ask({ [PEER]: "203.0.113.9" })).toMatchObject({ ok: false, status: 401 });
    // X-Forwarded-For is not believed: a remote peer claiming loopback stays remote.
    expect(await ask({ [PEER]: "203.0.113.9", "x-forwarded-for": "127.0.0.1" })).toMatchObject({ ok: false, status: 401 });
    // A proxy on this host forwarding someone else's request.
    expect(await ask({ [PEER]: "127.0.0.1", "x-forwarded-for": "198.51.100.7" })).toMatchObject({ ok: false, status: 401 });
    expect(await ask({ [PEER]: "127.0.0.1", "x-real-ip": "198.51.100.7" })).toMatchObject({ ok: false, status: 401 });
    expect(await ask({ [PEER]: "127.0.0.1", forwarded: "for=198.51.100.7" })).toMatchObject({ ok: false, status: 401 });
    // Deployed behind trusted proxies: loopback is the proxy.
    expect(await ask({ [PEER]: "127.0.0.1" }, { hops: 1 })).toMatchObject({ ok: false, status: 401 });
    // Without peer-address.cjs the peer is unknown.
    expect(await ask({ [PEER]: "127.0.0.1" }, { peerHeader: null })).toMatchObject({ ok: false, status: 401 });
    expect(await ask({})).toMatchObject({ ok: false, status: 401 });
  });
});
