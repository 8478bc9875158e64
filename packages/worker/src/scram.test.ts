import { createHash, createHmac, pbkdf2Sync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scramUpsertion } from "./scram.ts";

describe("scram credentials", () => {
  it("produces SCRAM upsertions a broker can verify a client proof against (RFC 5802)", () => {
    const up = scramUpsertion("SCRAM-SHA-512", "pw");
    expect(up.iterations).toBe(8192);
    expect(up.saltedPassword).toEqual(pbkdf2Sync("pw", up.salt, 8192, 64, "sha512"));
    // StoredKey as the broker derives it equals what a client derives from the password.
    const storedKey = (salted: Buffer) => createHash("sha512").update(createHmac("sha512", salted).update("Client Key").digest()).digest();
    expect(storedKey(up.saltedPassword)).toEqual(storedKey(pbkdf2Sync("pw", up.salt, 8192, 64, "sha512")));
  });
});
