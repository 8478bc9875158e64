import { encode, decode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { createSessionDecoder, sessionCookieName, sessionTokenFrom } from "./session-token";

const SECRET = "a-test-secret-of-enough-length-for-hkdf";

/** next-auth's decode, counting its calls. */
function countingDecode() {
  const calls = { n: 0 };
  const fn = async (params: { token: string; secret: string }) => {
    calls.n++;
    return decode(params);
  };
  return { calls, fn };
}

describe("session token", () => {
  it("finds next-auth's cookie by the name next-auth uses for the portal's URL, joining chunks in order", () => {
    expect(sessionCookieName("http://localhost:3000")).toBe("next-auth.session-token");
    expect(sessionCookieName("https://portal.example")).toBe("__Secure-next-auth.session-token");
    const name = "next-auth.session-token";
    expect(sessionTokenFrom([{ name: "other", value: "x" }], name)).toBeNull();
    expect(sessionTokenFrom([{ name, value: "whole" }], name)).toBe("whole");
    expect(sessionTokenFrom([{ name: `${name}.1`, value: "b" }, { name: `${name}.0`, value: "a" }, { name: `${name}.2`, value: "c" }], name)).toBe("abc");
    // The plain name is not the secure one: an http portal never reads a __Secure- cookie and vice versa.
    expect(sessionTokenFrom([{ name: "__Secure-next-auth.session-token", value: "x" }], name)).toBeNull();
  });

  it("answers the token's user as next-auth decodes it, and decodes a token once", async () => {
    const token = await encode({ token: { sub: "user-1", name: "U" }, secret: SECRET, maxAge: 3600 });
    const { calls, fn } = countingDecode();
    const userId = createSessionDecoder({ secret: SECRET, decode: fn });
    expect((await userId(token))?.userId).toBe("user-1");
    expect((await userId(token))?.userId).toBe("user-1");
    expect(calls.n).toBe(1);
    expect(await userId(null)).toBeNull();
  });

  it("refuses a tampered or foreign token, and never remembers it", async () => {
    const token = await encode({ token: { sub: "user-1" }, secret: SECRET, maxAge: 3600 });
    const foreign = await encode({ token: { sub: "user-1" }, secret: "another-secret-another-secret-another", maxAge: 3600 });
    const { calls, fn } = countingDecode();
    const userId = createSessionDecoder({ secret: SECRET, decode: fn });
    const tampered = `${token.slice(0, -4)}${token.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    expect(await userId(tampered)).toBeNull();
    expect(await userId(foreign)).toBeNull();
    expect(await userId(foreign)).toBeNull();
    expect(calls.n).toBe(3);
  });

  it("stops answering for a remembered token once it has expired", async () => {
    let clock = Date.now();
    const token = await encode({ token: { sub: "user-1" }, secret: SECRET, maxAge: 60 });
    const { calls, fn } = countingDecode();
    const userId = createSessionDecoder({ secret: SECRET, decode: fn, now: () => clock });
    expect((await userId(token))?.userId).toBe("user-1");
    clock += 30_000;
    expect((await userId(token))?.userId).toBe("user-1");
    expect(calls.n).toBe(1);
    // Past exp by the decoder's clock: the memory no longer answers; the token is decoded again
    // (next-auth's decode judges expiry itself, by the real clock, with its 15 s tolerance) and not remembered.
    clock += 31_000;
    expect((await userId(token))?.userId).toBe("user-1");
    expect(calls.n).toBe(2);
    await userId(token);
    expect(calls.n).toBe(3);
  });

  it("remembers a bounded number of tokens, dropping the oldest", async () => {
    const { calls, fn } = countingDecode();
    const userId = createSessionDecoder({ secret: SECRET, decode: fn, maxRemembered: 2 });
    const tokens = await Promise.all(["a", "b", "c"].map((sub) => encode({ token: { sub }, secret: SECRET, maxAge: 3600 })));
    for (const t of tokens) await userId(t);
    expect(calls.n).toBe(3);
    expect((await userId(tokens[2] ?? null))?.userId).toBe("c");
    expect((await userId(tokens[1] ?? null))?.userId).toBe("b");
    expect(calls.n).toBe(3);
    expect((await userId(tokens[0] ?? null))?.userId).toBe("a");
    expect(calls.n).toBe(4);
  });

  it("has no user for a token without a subject", async () => {
    const token = await encode({ token: { name: "nobody" }, secret: SECRET, maxAge: 3600 });
    expect(await createSessionDecoder({ secret: SECRET })(token)).toBeNull();
  });
});
