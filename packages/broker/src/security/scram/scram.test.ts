// SCRAM math and the server exchange against fixed vectors:
//  - SCRAM-SHA-256: the example of RFC 7677 §3 (user "user", password "pencil").
//  - SCRAM-SHA-512: the same inputs, with the expected proof and signature computed
//    independently (Python hashlib/hmac); there is no RFC example for SHA-512.
//  - PBKDF2-HMAC-SHA512 ("password", "salt", 1 and 2 iterations), the widely
//    published vectors, pins Hi() for SHA-512.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SaslFailure, newExchange } from "../sasl/mechanisms.ts";
import { ScramCredentialStore } from "./credential-store.ts";
import {
  SCRAM_SHA_256,
  SCRAM_SHA_512,
  clientProof,
  credentialFromSaltedPassword,
  escapeSaslName,
  parseClientFirst,
  passwordMatches,
  saltedPassword,
  unescapeSaslName,
  type ScramMechanism,
} from "./scram.ts";

const SALT = Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64");
const CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
const SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
const NONCE = CLIENT_NONCE + SERVER_NONCE;
const SERVER_FIRST = `r=${NONCE},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`;
const AUTH_MESSAGE = `n=user,r=${CLIENT_NONCE},${SERVER_FIRST},c=biws,r=${NONCE}`;

const VECTORS: Array<{ mech: ScramMechanism; proof: string; serverFinal: string; storedKey: string; serverKey: string }> = [
  {
    mech: SCRAM_SHA_256,
    proof: "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
    storedKey: "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=",
    serverKey: "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=",
  },
  {
    mech: SCRAM_SHA_512,
    proof: "gMGXRcevScNtxZ6/8lQYpGtnsNAc3mGcmNomv+xnoOMw+3R2xNJdMNnzMlTN8PPC6wdp6dybEmDYXYTxwnYPJQ==",
    serverFinal: "v=ZQnYEgWQMFmmsM8aQMF0nDDCy/AgCzkwk8CmMZYcMg0vSVlKDanekLtifDSeVGT4+5ZxXnJq199RVG2rR7N7Zw==",
    storedKey: "6AAub3065EYRmyFpM2RNwqK+eGnrkYuEWbXn19LsEmBqzu8QaCXNc1FwpnX9NhH2hK/60dzj9DoO5DvVkOHbvg==",
    serverKey: "jZHbYjC1aHh0/hKbxyBuGFjDrgjgKTT1esA7awWiKcRZ0o/0b1yWEebBeSVkkCFewf91nLDfKF24mvD5nmE6rA==",
  },
];

async function storeWith(users: Array<{ user: string; mech: ScramMechanism; password: string; salt?: Buffer; iterations?: number }>) {
  const dir = await mkdtemp(join(tmpdir(), "kappa-scram-test-"));
  const store = await ScramCredentialStore.open(dir);
  const changes = [];
  for (const u of users) {
    const salt = u.salt ?? SALT;
    const iterations = u.iterations ?? 4096;
    changes.push({ kind: "upsert" as const, user: u.user, mechanism: u.mech, credential: credentialFromSaltedPassword(u.mech, salt, iterations, await saltedPassword(u.mech, u.password, salt, iterations)) });
  }
  await store.apply(changes);
  return { store, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

describe("SCRAM math", () => {
  it("Hi() for SHA-512 matches the published PBKDF2-HMAC-SHA512 vectors", async () => {
    expect((await saltedPassword(SCRAM_SHA_512, "password", Buffer.from("salt"), 1)).toString("hex")).toBe(
      "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce",
    );
    expect((await saltedPassword(SCRAM_SHA_512, "password", Buffer.from("salt"), 2)).toString("hex")).toBe(
      "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefdb866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e04112754f27ccf4e",
    );
  });

  for (const v of VECTORS) {
    it(`${v.mech.name}: stored key, server key and client proof match the vector`, async () => {
      const salted = await saltedPassword(v.mech, "pencil", SALT, 4096);
      const cred = credentialFromSaltedPassword(v.mech, SALT, 4096, salted);
      expect(cred.storedKey.toString("base64")).toBe(v.storedKey);
      expect(cred.serverKey.toString("base64")).toBe(v.serverKey);
      expect(clientProof(v.mech, salted, AUTH_MESSAGE).toString("base64")).toBe(v.proof);
      expect(await passwordMatches(v.mech, cred, "pencil")).toBe(true);
      expect(await passwordMatches(v.mech, cred, "pencil!")).toBe(false);
    });

    it(`${v.mech.name}: the server exchange reproduces the vector's messages and authenticates`, async () => {
      const { store, cleanup } = await storeWith([{ user: "user", mech: v.mech, password: "pencil" }]);
      try {
        const ex = newExchange(v.mech.name, store, { nonce: () => SERVER_NONCE });
        const first = await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
        expect(first.challenge.toString()).toBe(SERVER_FIRST);
        expect(first.authenticatedUser).toBeNull();
        const final = await ex.evaluate(Buffer.from(`c=biws,r=${NONCE},p=${v.proof}`));
        expect(final.challenge.toString()).toBe(v.serverFinal);
        expect(final.authenticatedUser).toBe("user");
        // The exchange is over: the same final message again is refused.
        await expect(ex.evaluate(Buffer.from(`c=biws,r=${NONCE},p=${v.proof}`))).rejects.toBeInstanceOf(SaslFailure);
      } finally {
        await cleanup();
      }
    });
  }
});

describe("SCRAM server exchange refuses bad messages", () => {
  const mech = SCRAM_SHA_512;
  const proof = VECTORS[1]?.proof ?? "";
  const stats = { dummyVerifications: 0 };
  async function withExchange(fn: (ex: ReturnType<typeof newExchange>) => Promise<void>, nonce = () => SERVER_NONCE) {
    const { store, cleanup } = await storeWith([{ user: "user", mech, password: "pencil" }]);
    try {
      await fn(newExchange(mech.name, store, { nonce, stats }));
    } finally {
      await cleanup();
    }
  }
  const generic = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512";

  it("a wrong proof, with Kafka's generic message", async () => {
    await withExchange(async (ex) => {
      await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
      const bad = Buffer.from(proof, "base64");
      bad[0] = (bad[0] ?? 0) ^ 1;
      await expect(ex.evaluate(Buffer.from(`c=biws,r=${NONCE},p=${bad.toString("base64")}`))).rejects.toMatchObject({ clientMessage: generic });
    });
  });

  it("a replayed final message: a new exchange has a new server nonce, so the old proof does not match", async () => {
    await withExchange(async (ex) => {
      await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
      await expect(ex.evaluate(Buffer.from(`c=biws,r=${NONCE},p=${proof}`))).rejects.toMatchObject({ reason: expect.stringContaining("nonce") });
    }, () => "another-server-nonce");
  });

  it("an unknown user gets a server-first like a real user's and fails at the proof, after a dummy verification", async () => {
    const before = stats.dummyVerifications;
    let serverFirst = "";
    await withExchange(async (ex) => {
      serverFirst = (await ex.evaluate(Buffer.from(`n,,n=nobody,r=${CLIENT_NONCE}`))).challenge.toString();
      expect(serverFirst).toMatch(new RegExp(`^r=${NONCE.replace(/[$)%]/g, "\\$&")},s=[A-Za-z0-9+/]{43}=,i=4096$`));
      // A client that computes a proof from some password: refused exactly as a wrong password is.
      const { scramProofFor } = await import("./scram-test-client.ts");
      await expect(ex.evaluate(Buffer.from(scramProofFor(mech, "guess", `n=nobody,r=${CLIENT_NONCE}`, serverFirst)))).rejects.toMatchObject({ clientMessage: generic });
    });
    expect(stats.dummyVerifications).toBe(before + 1);
    // The same name gets the same salt every time, as a real user's does.
    await withExchange(async (ex) => {
      expect((await ex.evaluate(Buffer.from(`n,,n=nobody,r=${CLIENT_NONCE}`))).challenge.toString()).toBe(serverFirst);
    });
  });

  it("the final nonce must be exactly client nonce + server nonce (Kafka 4.x), not merely end with it as librdkafka < 2.6.1 sends it", async () => {
    const { scramProofFor } = await import("./scram-test-client.ts");
    await withExchange(async (ex) => {
      const first = (await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`))).challenge.toString();
      // librdkafka before 2.6.1: r=<client nonce><client nonce + server nonce>, with a valid proof over that message.
      const final = scramProofFor(mech, "pencil", `n=user,r=${CLIENT_NONCE}`, first, CLIENT_NONCE + NONCE);
      await expect(ex.evaluate(Buffer.from(final))).rejects.toMatchObject({ clientMessage: generic, reason: expect.stringContaining("Invalid client nonce") });
    });
    await withExchange(async (ex) => {
      const first = (await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`))).challenge.toString();
      expect((await ex.evaluate(Buffer.from(scramProofFor(mech, "pencil", `n=user,r=${CLIENT_NONCE}`, first)))).authenticatedUser).toBe("user");
    });
  });

  it("client-final grammar as Kafka's pattern: strict base64, printable nonce, extensions before the proof", async () => {
    const finals = [
      `c=biws,r=${NONCE},p=${proof.slice(0, -2)}`, // base64 not padded to whole groups
      `c=biw,r=${NONCE},p=${proof}`, // channel binding not whole base64 groups
      `c=biws,r=${NONCE} x,p=${proof}`, // space is not printable
      `r=${NONCE},c=biws,p=${proof}`, // wrong order
      `c=biws,r=${NONCE},p=${proof},x=1`, // anything after the proof
      `c=biws,r=${NONCE},1=2,p=${proof}`, // extension name must be letters
      `c=biws,r=${NONCE}é,p=${proof}`, // not ASCII
    ];
    for (const msg of finals) {
      await withExchange(async (ex) => {
        await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
        await expect(ex.evaluate(Buffer.from(msg)), msg).rejects.toMatchObject({ clientMessage: generic, reason: expect.stringContaining("format") });
      });
    }
    // An extension before the proof is allowed by the grammar (and then covered by the proof).
    await withExchange(async (ex) => {
      await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
      await expect(ex.evaluate(Buffer.from(`c=biws,r=${NONCE},ext=1,p=${proof}`))).rejects.toMatchObject({ reason: expect.stringContaining("Invalid client credentials") });
    });
  });

  it("wrong channel binding, a tampered nonce, an authzid for another user, malformed messages", async () => {
    await withExchange(async (ex) => {
      await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
      await expect(ex.evaluate(Buffer.from(`c=eSws,r=${NONCE},p=${proof}`))).rejects.toMatchObject({ reason: expect.stringContaining("channel binding") });
    });
    await withExchange(async (ex) => {
      await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
      await expect(ex.evaluate(Buffer.from(`c=biws,r=${NONCE}x,p=${proof}`))).rejects.toMatchObject({ clientMessage: generic });
    });
    await withExchange(async (ex) => {
      await expect(ex.evaluate(Buffer.from(`n,a=admin,n=user,r=${CLIENT_NONCE}`))).rejects.toMatchObject({
        clientMessage: "Authentication failed: Client requested an authorization id that is different from username",
      });
    });
    for (const msg of ["p=tls-unique,,n=user,r=abc", "n,,r=abc", "n,,n=user", "n,,m=ext,n=user,r=abc", "n,,n=us=er,r=abc", "garbage", "n,a=,n=user,r=abc", "n,,n=usér,r=abc", "n,,n=user,r=a b", "n,,n=user,r=abc,1=x"]) {
      await withExchange(async (ex) => {
        await expect(ex.evaluate(Buffer.from(msg)), msg).rejects.toMatchObject({ clientMessage: generic });
      });
    }
    await withExchange(async (ex) => {
      await ex.evaluate(Buffer.from(`n,,n=user,r=${CLIENT_NONCE}`));
      await expect(ex.evaluate(Buffer.from(`c=biws,r=${NONCE}`))).rejects.toMatchObject({ clientMessage: generic });
    });
  });

  it("user names with ',' and '=' travel escaped (RFC 5802 saslname)", () => {
    expect(escapeSaslName("a,b=c")).toBe("a=2Cb=3Dc");
    expect(unescapeSaslName("a=2Cb=3Dc")).toBe("a,b=c");
    expect(parseClientFirst(Buffer.from("n,,n=a=2Cb,r=xyz")).userName).toBe("a,b");
  });
});

describe("PLAIN checks the password of a start-up user against its SCRAM credential", () => {
  it("accepts the right password, refuses a wrong one, an unknown user, a user PLAIN does not know and a foreign authzid with Kafka's messages", async () => {
    const { store, cleanup } = await storeWith([
      { user: "alice", mech: SCRAM_SHA_512, password: "wonderland" },
      { user: "bob", mech: SCRAM_SHA_512, password: "builder" },
    ]);
    try {
      // alice is a start-up user (Kafka: a JAAS user); bob has only a SCRAM credential, as if created at run time.
      const plainUsers = new Map([["alice", store.get("alice", SCRAM_SHA_512)!]]);
      const plain = (token: string) => newExchange("PLAIN", store, { plainUsers }).evaluate(Buffer.from(token));
      expect((await plain("\u0000alice\u0000wonderland")).authenticatedUser).toBe("alice");
      expect((await plain("alice\u0000alice\u0000wonderland")).authenticatedUser).toBe("alice");
      await expect(plain("\u0000bob\u0000builder")).rejects.toMatchObject({ clientMessage: "Authentication failed: Invalid username or password" });
      const invalid = { clientMessage: "Authentication failed: Invalid username or password" };
      await expect(plain("\u0000alice\u0000wonderlanD")).rejects.toMatchObject(invalid);
      await expect(plain("\u0000carol\u0000x")).rejects.toMatchObject(invalid);
      await expect(plain("bob\u0000alice\u0000wonderland")).rejects.toMatchObject({
        clientMessage: "Authentication failed: Client requested an authorization id that is different from username",
      });
      await expect(plain("\u0000\u0000pw")).rejects.toMatchObject({ clientMessage: "Authentication failed: username not specified" });
      await expect(plain("alice-wonderland")).rejects.toMatchObject({
        clientMessage: "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN",
      });
    } finally {
      await cleanup();
    }
  });
});
