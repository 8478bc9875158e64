import { describe, expect, it } from "vitest";
import { scramClient } from "./sasl-scram.ts";

// RFC 7677 section 3's SCRAM-SHA-256 example: user "user", password "pencil".
describe("scramClient", () => {
  it("produces the RFC 7677 client messages and accepts the RFC's server signature", () => {
    const c = scramClient("SCRAM-SHA-256", "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
    expect(c.first.toString()).toBe("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
    const final = c.final(Buffer.from("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
    expect(final.toString()).toBe("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
    expect(() => c.verifyServer(Buffer.from("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))).not.toThrow();
    expect(() => c.verifyServer(Buffer.from("v=AAAA"))).toThrow(/signature/);
  });

  it("escapes user names and refuses a server nonce that does not extend ours", () => {
    const c = scramClient("SCRAM-SHA-512", "a=b,c", "pw", "n0nce");
    expect(c.first.toString()).toBe("n,,n=a=3Db=2Cc,r=n0nce");
    expect(() => c.final(Buffer.from("r=other,s=AAAA,i=4096"))).toThrow(/server-first/);
    expect(() => c.final(Buffer.from("r=n0nceX,s=AAAA,i=100"))).toThrow(/server-first/);
  });
});
