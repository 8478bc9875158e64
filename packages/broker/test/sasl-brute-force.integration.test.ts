// Password guessing over SASL (issue 30 item 7): Kafka's
// connection.failed.authentication.delay.ms (KIP-306), a dummy verification for
// unknown users, backoff per user name and per client address, and failure logs
// as counts rather than one line per failure. Raw clients measure each answer;
// kafkajs and kcat check what a real client sees.
import { afterEach, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { embeddedOnly, oracleRun, RawClient, startTestBroker, waitFor, type TestBroker } from "./helpers.ts";
import { SCRAM_SHA_512, adminListTopics, kcatSasl, runKcat, scramClientFinal } from "./sasl-helpers.ts";

const ALICE = { name: "alice", password: "alice-secret-1" };
const BOB = { name: "bob", password: "bob-secret-2" };

const brokers: TestBroker[] = [];
afterEach(async () => {
  await Promise.all(brokers.splice(0).map((b) => b.cleanup()));
});

async function saslBroker(settings: Record<string, number>): Promise<TestBroker> {
  const b = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", saslUsers: [ALICE, BOB], ...settings });
  brokers.push(b);
  return b;
}

interface Attempt {
  errorCode: number;
  errorMessage: string | null;
  /** From sending SaslAuthenticate to its answer. */
  ms: number;
  /** The broker closed the connection after the answer. */
  closed: boolean;
}

/** One PLAIN login on a fresh connection from `from` (a loopback address: the client address the broker sees). */
async function plainAttempt(port: number, user: string, password: string, from = "127.0.0.1"): Promise<Attempt> {
  const c = await RawClient.connect(port, "127.0.0.1", from);
  try {
    await c.request(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" });
    const start = performance.now();
    const r = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`\u0000${user}\u0000${password}`) });
    const ms = performance.now() - start;
    const closed = r.body.errorCode === ErrorCode.NONE ? false : await c.waitClosed(5000);
    return { errorCode: r.body.errorCode, errorMessage: r.body.errorMessage, ms, closed };
  } finally {
    c.close();
  }
}

/** A SCRAM-SHA-512 login: the server-first, then the final step's answer. */
async function scramAttempt(port: number, user: string, password: string, from = "127.0.0.1"): Promise<{ serverFirst: string; first: number; final: Attempt }> {
  const c = await RawClient.connect(port, "127.0.0.1", from);
  try {
    await c.request(ApiKey.SaslHandshake, 1, { mechanism: "SCRAM-SHA-512" });
    const bare = `n=${user},r=clientnonce0123456789`;
    const first = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`n,,${bare}`) });
    const serverFirst = first.body.authBytes.toString();
    if (first.body.errorCode !== ErrorCode.NONE) {
      return { serverFirst, first: first.body.errorCode, final: { errorCode: first.body.errorCode, errorMessage: first.body.errorMessage, ms: 0, closed: await c.waitClosed() } };
    }
    const start = performance.now();
    const r = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(scramClientFinal(SCRAM_SHA_512, password, bare, serverFirst)) });
    const ms = performance.now() - start;
    const closed = r.body.errorCode === ErrorCode.NONE ? false : await c.waitClosed(5000);
    return { serverFirst, first: ErrorCode.NONE, final: { errorCode: r.body.errorCode, errorMessage: r.body.errorMessage, ms, closed } };
  } finally {
    c.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

describe("connection.failed.authentication.delay.ms (KIP-306)", () => {
  it("100 wrong passwords: every failure is answered only after the delay, then the connection closes; the log has counts, not 100 lines", async () => {
    const b = await saslBroker({ "connection.failed.authentication.delay.ms": 100, "sasl.failed.authentication.backoff.threshold": 0 });
    const attempts: Attempt[] = [];
    for (let round = 0; round < 10; round++) {
      attempts.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => plainAttempt(b.port, round % 2 === 0 ? ALICE.name : `ghost-${i}`, `guess-${round}-${i}`)))));
    }
    expect(attempts).toHaveLength(100);
    for (const a of attempts) {
      expect(a).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: "Authentication failed: Invalid username or password", closed: true });
      expect(a.ms).toBeGreaterThanOrEqual(95); // timer granularity
    }
    // This broker's log (Kafka's is not read here).
    if (!oracleRun()) {
      const failureLines = () => b.logLines.filter((l) => l.includes("failed SASL authentication"));
      // The first failure is logged at once; the other 99 wait for the next summary.
      expect(failureLines().length).toBeLessThanOrEqual(2);
      b.core.sasl.failures.flushLog();
      const summed = failureLines()
        .map((l) => Number(/^INFO (\d+) failed SASL authentication/.exec(l)?.[1] ?? "NaN"))
        .reduce((x, y) => x + y, 0);
      expect(summed).toBe(100);
      expect(failureLines().at(-1)).toMatch(/from 127\.0\.0\.1 ×\d+; users alice ×\d+/);
      for (const l of b.logLines) expect(l).not.toContain("guess-");
    }
    // The right password is not delayed.
    const ok = await plainAttempt(b.port, ALICE.name, ALICE.password);
    expect(ok.errorCode).toBe(ErrorCode.NONE);
  });

  it("an unsupported mechanism's refusal is delayed too (Kafka's UnsupportedSaslMechanismException is an AuthenticationException)", async () => {
    const b = await saslBroker({ "connection.failed.authentication.delay.ms": 300 });
    const c = await RawClient.connect(b.port);
    const start = performance.now();
    const r = await c.request(ApiKey.SaslHandshake, 1, { mechanism: "GSSAPI" });
    expect(performance.now() - start).toBeGreaterThanOrEqual(290);
    expect(r.body.errorCode).toBe(ErrorCode.UNSUPPORTED_SASL_MECHANISM);
    expect(await c.waitClosed()).toBe(true);
  });

  it("kafkajs and kcat see the refusal after the delay, and the right password still works", async () => {
    const b = await saslBroker({ "connection.failed.authentication.delay.ms": 200, "sasl.failed.authentication.backoff.threshold": 0 });
    const start = performance.now();
    await expect(adminListTopics(b.bootstrap, "scram-sha-512", ALICE.name, "wrong")).rejects.toThrow(/Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/);
    expect(performance.now() - start).toBeGreaterThanOrEqual(190);
    const bad = await runKcat(b.bootstrap, ["-L", "-m", "5", ...kcatSasl(ALICE.name, "wrong", "SASL_PLAINTEXT", "PLAIN")]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("Authentication failed: Invalid username or password");
    expect(await adminListTopics(b.bootstrap, "scram-sha-512", ALICE.name, ALICE.password)).toEqual(expect.any(Array));
  });
});

describe("unknown users look like known ones", () => {
  // Kafka's PLAIN compares the passwords of its JAAS configuration (no PBKDF2 to equalize); this broker checks PLAIN against its SCRAM credentials.
  embeddedOnly("PLAIN checked against SCRAM credentials, with a dummy PBKDF2 for unknown users").it("PLAIN: an unknown user costs the same PBKDF2 as a wrong password (a dummy verification), with the same answer", async () => {
    // No delay, so the verification itself is what is timed.
    const b = await saslBroker({ "connection.failed.authentication.delay.ms": 0, "sasl.failed.authentication.backoff.threshold": 0 });
    const stats = b.core.sasl.stats;
    const known: number[] = [];
    const unknown: number[] = [];
    const before = stats.dummyVerifications;
    for (let i = 0; i < 12; i++) {
      const k = await plainAttempt(b.port, ALICE.name, `wrong-${i}`);
      const u = await plainAttempt(b.port, `nobody-${i}`, `wrong-${i}`);
      expect(u.errorMessage).toBe(k.errorMessage);
      expect([k.closed, u.closed]).toEqual([true, true]);
      known.push(k.ms);
      unknown.push(u.ms);
    }
    // The code path: every unknown user ran a dummy verification, no known user did.
    expect(stats.dummyVerifications - before).toBe(12);
    // And the time: without the dummy PBKDF2 an unknown user is answered in a fraction of a wrong password's time.
    expect(median(unknown)).toBeGreaterThan(median(known) / 4);
  });

  // A hardening Kafka does not have: Kafka's ScramSaslServer refuses an unknown user at the client-first message.
  embeddedOnly("hides unknown SCRAM users, which Kafka refuses at the client-first message").it("SCRAM: an unknown user gets a server-first like a real user's (stable salt, same iterations) and fails only at the proof", async () => {
    const b = await saslBroker({ "connection.failed.authentication.delay.ms": 0, "sasl.failed.authentication.backoff.threshold": 0 });
    const before = b.core.sasl.stats.dummyVerifications;
    const real = await scramAttempt(b.port, ALICE.name, "wrong");
    const ghost = await scramAttempt(b.port, "ghost", "wrong");
    const ghostAgain = await scramAttempt(b.port, "ghost", "wrong");
    const shape = (sf: string) => sf.replace(/^r=[^,]+,s=([^,]+),i=(\d+)$/, (_, salt: string, i: string) => `salt ${Buffer.from(salt, "base64").length} bytes, i=${i}`);
    expect(ghost.first).toBe(ErrorCode.NONE);
    expect(shape(ghost.serverFirst)).toBe(shape(real.serverFirst));
    expect(ghostAgain.serverFirst.split(",s=")[1]).toBe(ghost.serverFirst.split(",s=")[1]);
    expect(ghost.final).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: real.final.errorMessage, closed: true });
    expect(b.core.sasl.stats.dummyVerifications - before).toBe(2);
  });
});

embeddedOnly("its brute-force backoff, which Kafka does not have").describe("backoff per user name and per address", () => {
  it("after the threshold a user is refused without a check, from any address, until the backoff ends; then the right password works", async () => {
    const b = await saslBroker({
      "connection.failed.authentication.delay.ms": 50,
      "sasl.failed.authentication.backoff.threshold": 3,
      "sasl.failed.authentication.backoff.ms": 1500,
      "sasl.failed.authentication.backoff.max.ms": 6000,
    });
    // Three guesses from three addresses (from one address, its own backoff would hold the third answer back as long as alice's lasts).
    for (let i = 0; i < 3; i++) expect((await plainAttempt(b.port, ALICE.name, `guess-${i}`, `127.0.1.${i + 1}`)).errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(b.core.sasl.failures.userBackoffLeft(ALICE.name)).toBeGreaterThan(0);
    // In backoff: even the right password, from another address, is refused with the same answer as a wrong one.
    const refused = await plainAttempt(b.port, ALICE.name, ALICE.password, "127.0.0.3");
    expect(refused).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: "Authentication failed: Invalid username or password", closed: true });
    b.core.sasl.failures.flushLog();
    expect(b.logLines.some((l) => /backoff started for .*user alice \(3 failures, 1500 ms\)/.test(l))).toBe(true);
    expect(b.logLines.some((l) => /1 refused during backoff/.test(l))).toBe(true);
    // Once alice's backoff has ended, her password works again (and clears her failures), with kafkajs too.
    await waitFor(() => b.core.sasl.failures.userBackoffLeft(ALICE.name) === 0, 10_000, "the end of alice's backoff");
    expect((await plainAttempt(b.port, ALICE.name, ALICE.password, "127.0.0.3")).errorCode).toBe(ErrorCode.NONE);
    expect(await adminListTopics(b.bootstrap, "plain", ALICE.name, ALICE.password)).toEqual(expect.any(Array));
  });

  it("an address in backoff: its failures wait out the backoff, a right password from it is answered at once", async () => {
    const b = await saslBroker({
      "connection.failed.authentication.delay.ms": 50,
      "sasl.failed.authentication.backoff.threshold": 3,
      "sasl.failed.authentication.backoff.ms": 1000,
      "sasl.failed.authentication.backoff.max.ms": 4000,
    });
    const sprayer = "127.0.0.4";
    // Spraying user names: no user reaches the threshold, the address does at the third failure.
    const first = [];
    for (const user of ["u1", "u2", "u3"]) first.push(await plainAttempt(b.port, user, "guess", sprayer));
    expect(first[2]!.ms).toBeGreaterThanOrEqual(950);
    const fourth = await plainAttempt(b.port, "u4", "guess", sprayer);
    expect(fourth.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(fourth.ms).toBeGreaterThanOrEqual(1900); // doubled
    const bob = await plainAttempt(b.port, BOB.name, BOB.password, sprayer);
    expect(bob.errorCode).toBe(ErrorCode.NONE);
    expect(bob.ms).toBeLessThan(1000);
    // Another address is not affected.
    expect((await plainAttempt(b.port, "u5", "guess", "127.0.0.5")).ms).toBeLessThan(1000);
  });

  it("SCRAM: a user in backoff is refused at the first message; an unknown user name is put in backoff the same way", async () => {
    const b = await saslBroker({
      "connection.failed.authentication.delay.ms": 0,
      "sasl.failed.authentication.backoff.threshold": 2,
      "sasl.failed.authentication.backoff.ms": 20_000,
      "sasl.failed.authentication.backoff.max.ms": 20_000,
    });
    // Each guess from its own address, so that no address reaches the threshold.
    let n = 0;
    for (const user of [ALICE.name, "ghost"]) {
      for (let i = 0; i < 2; i++) expect((await scramAttempt(b.port, user, "wrong", `127.0.2.${++n}`)).final.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    }
    const alice = await scramAttempt(b.port, ALICE.name, ALICE.password, "127.0.0.8");
    const ghost = await scramAttempt(b.port, "ghost", "wrong", "127.0.0.8");
    expect(alice.first).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(ghost.first).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(ghost.final.errorMessage).toBe(alice.final.errorMessage);
    expect((await scramAttempt(b.port, BOB.name, BOB.password, "127.0.2.50")).final.errorCode).toBe(ErrorCode.NONE);
  });
});
