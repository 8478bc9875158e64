// SASL authentication against real clients (kafkajs 2.2.4, kcat/librdkafka 2.0.2)
// and a raw client for the wire rules clients never break on their own.
//
// One broker with two listeners, SASL_PLAINTEXT and PLAINTEXT, the ACL authorizer
// on and `admin` as super user (what --sasl-admin sets up).
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, decodeResponse } from "@kappa/kafka-protocol";
import { javaHashMapOrder } from "../src/java-hash-order.ts";
import { ScramCredentialStore } from "../src/security/scram/credential-store.ts";
import { RawClient, awaitCoordinator, embeddedOnly, oracleRun, kafkaClient, newDataDir, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";
import {
  SCRAM_SHA_256,
  SCRAM_SHA_512,
  adminListTopics,
  kcatSasl,
  rawPlainLogin,
  runKcat,
  saslKafka,
  scramClientFinal,
  upsertion,
  type KafkajsMechanism,
} from "./sasl-helpers.ts";

const ADMIN = { name: "admin", password: "admin-secret-7f3a" };
const ALICE = { name: "alice", password: "alice-secret-91c2" };

let broker: TestBroker;
let saslPort: number;
let plainPort: number;

beforeAll(async () => {
  broker = await startTestBroker({
    listeners: "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
    "authorizer.class.name": "standard",
    "super.users": `User:${ADMIN.name}`,
    saslUsers: [ADMIN, ALICE],
    // Many of these tests fail a login on purpose, all from 127.0.0.1: the backoff
    // would stretch the later failures' answers; it has its own tests (sasl-brute-force).
    "sasl.failed.authentication.backoff.threshold": 0,
  });
  const [sasl, plain] = broker.listeners;
  if (!sasl || !plain) throw new Error("expected two listeners");
  saslPort = sasl.boundPort;
  plainPort = plain.boundPort;
});
afterAll(async () => {
  await broker.cleanup();
});

const saslBootstrap = () => `127.0.0.1:${saslPort}`;

describe("kafkajs", () => {
  const mechanisms: KafkajsMechanism[] = ["scram-sha-512", "scram-sha-256", "plain"];
  for (const mechanism of mechanisms) {
    it(`${mechanism}: the right password connects, a wrong one fails with SASL_AUTHENTICATION_FAILED's message`, async () => {
      const topic = uniqueName("sasl-kjs");
      // Retries as kafkajs' defaults do: Kafka answers UNKNOWN_TOPIC_OR_PARTITION while it auto-creates the topic.
      const kafka = saslKafka(saslBootstrap(), mechanism, ADMIN.name, ADMIN.password, { retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2000 } });
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ value: `via ${mechanism}` }] });
      await producer.disconnect();
      expect(await adminListTopics(saslBootstrap(), mechanism, ADMIN.name, ADMIN.password)).toContain(topic);

      const failure = await adminListTopics(saslBootstrap(), mechanism, ADMIN.name, `${ADMIN.password}-wrong`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(Error);
      const err = failure as Error;
      expect(err.name).toBe("KafkaJSSASLAuthenticationError");
      // The broker's SASL_AUTHENTICATION_FAILED message, as Kafka words it.
      expect(err.message).toContain(
        mechanism === "plain" ? "Authentication failed: Invalid username or password" : `Authentication failed during authentication due to invalid credentials with SASL mechanism ${mechanism.toUpperCase()}`,
      );
      // An unknown user reads the same as a wrong password.
      await expect(adminListTopics(saslBootstrap(), mechanism, "nobody", "x")).rejects.toThrow(/Authentication failed/);
    });
  }

  it("a user created with AlterUserScramCredentials connects with SCRAM, never PLAIN; once deleted it cannot", async () => {
    const bob = { name: uniqueName("bob"), password: "bob-pw-3e1" };
    const admin = await rawPlainLogin(saslPort, ADMIN.name, ADMIN.password);
    try {
      await expect(adminListTopics(saslBootstrap(), "scram-sha-512", bob.name, bob.password)).rejects.toThrow(/Authentication failed/);
      const created = await admin.request(ApiKey.AlterUserScramCredentials, 0, {
        deletions: [],
        upsertions: [upsertion(bob.name, SCRAM_SHA_512, bob.password, 8192), ],
      });
      expect(created.body.results).toEqual([{ user: bob.name, errorCode: ErrorCode.NONE, errorMessage: null }]);
      // Kafka's broker learns the credential from the controller's metadata a moment after the answer.
      const describeBob = async () => (await admin.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: bob.name }] })).body.results[0]?.errorCode;
      await waitFor(async () => (await describeBob()) === ErrorCode.NONE, 10_000, "bob's credential");
      const described = await admin.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: bob.name }] });
      expect(described.body.results).toEqual([{ user: bob.name, errorCode: 0, errorMessage: "", credentialInfos: [{ mechanism: SCRAM_SHA_512.type, iterations: 8192 }] }]);

      expect(await adminListTopics(saslBootstrap(), "scram-sha-512", bob.name, bob.password)).toEqual(expect.any(Array));
      // PLAIN knows only the start-up users (Kafka: the users of its JAAS configuration), not those created at run time.
      await expect(adminListTopics(saslBootstrap(), "plain", bob.name, bob.password)).rejects.toThrow(/Invalid username or password/);
      // Only a SHA-512 credential exists: SCRAM-SHA-256 is refused.
      await expect(adminListTopics(saslBootstrap(), "scram-sha-256", bob.name, bob.password)).rejects.toThrow(/Authentication failed/);

      const deleted = await admin.request(ApiKey.AlterUserScramCredentials, 0, { deletions: [{ name: bob.name, mechanism: SCRAM_SHA_512.type }], upsertions: [] });
      expect(deleted.body.results).toEqual([{ user: bob.name, errorCode: ErrorCode.NONE, errorMessage: null }]);
      await waitFor(async () => (await describeBob()) === ErrorCode.RESOURCE_NOT_FOUND, 10_000, "bob's credential to be gone");
      await expect(adminListTopics(saslBootstrap(), "scram-sha-512", bob.name, bob.password)).rejects.toThrow(/Authentication failed/);
      await expect(adminListTopics(saslBootstrap(), "plain", bob.name, bob.password)).rejects.toThrow(/Invalid username or password/);
    } finally {
      admin.close();
    }
  });

  it("Metadata advertises the listener the client connected to", async () => {
    const viaSasl = saslKafka(saslBootstrap(), "plain", ADMIN.name, ADMIN.password).admin();
    await viaSasl.connect();
    const saslCluster = await viaSasl.describeCluster();
    await viaSasl.disconnect();
    expect(saslCluster.brokers).toEqual([{ nodeId: 1, host: "127.0.0.1", port: saslPort }]);

    const raw = await RawClient.connect(plainPort);
    try {
      const meta = await raw.request(ApiKey.Metadata, 8, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      expect(meta.body.brokers).toEqual([{ nodeId: 1, host: "127.0.0.1", port: plainPort, rack: null }]);
    } finally {
      raw.close();
    }
    const admin = await rawPlainLogin(saslPort, ADMIN.name, ADMIN.password);
    try {
      await awaitCoordinator(admin, "g");
      const coord = await admin.request(ApiKey.FindCoordinator, 2, { key: "g", keyType: 0 });
      expect(coord.body).toMatchObject({ errorCode: 0, host: "127.0.0.1", port: saslPort });
    } finally {
      admin.close();
    }
    // The plaintext listener does not authenticate: its clients are User:ANONYMOUS and the authorizer refuses them.
    const anonymous = kafkaClient(`127.0.0.1:${plainPort}`, { retry: { retries: 0 } }).admin();
    await anonymous.connect();
    await expect(anonymous.createTopics({ topics: [{ topic: uniqueName("anon") }] })).rejects.toMatchObject({ errors: [expect.objectContaining({ type: "TOPIC_AUTHORIZATION_FAILED" })] });
    await anonymous.disconnect();
  });
});

describe("wire rules before and during authentication", () => {
  it("before authentication only ApiVersions and SaslHandshake are served; anything else closes the connection", async () => {
    const c = await RawClient.connect(saslPort);
    const versions = await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: "raw", clientSoftwareVersion: "1" });
    const byKey = new Map(versions.body.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(byKey.get(ApiKey.SaslHandshake)).toEqual([0, 1]);
    // v1 (session lifetime) is what clients need; Kafka 4.1 advertises v2 too (flexible versions).
    expect(byKey.get(ApiKey.SaslAuthenticate)?.[0]).toBe(0);
    expect(byKey.get(ApiKey.SaslAuthenticate)?.[1]).toBeGreaterThanOrEqual(1);
    expect(byKey.get(ApiKey.DescribeUserScramCredentials)).toEqual([0, 0]);
    expect(byKey.get(ApiKey.AlterUserScramCredentials)).toEqual([0, 0]);
    c.send(ApiKey.Metadata, 8, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(await c.nextFrame()).toBeNull();
    expect(c.closed).toBe(true);

    // SaslAuthenticate before a handshake, and any other API after the handshake, close it too.
    const d = await RawClient.connect(saslPort);
    d.send(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from("\u0000admin\u0000x") });
    expect(await d.nextFrame()).toBeNull();
    const e = await RawClient.connect(saslPort);
    expect((await e.request(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" })).body.errorCode).toBe(ErrorCode.NONE);
    e.send(ApiKey.ApiVersions, 3, { clientSoftwareName: "raw", clientSoftwareVersion: "1" });
    const answer = await e.nextFrame();
    if (oracleRun()) {
      // Kafka first answers that request with its error response (ILLEGAL_SASL_STATE), then closes; this broker
      // closes at once (README "The oracle": still open).
      expect(answer && decodeResponse(ApiKey.ApiVersions, 3, answer).body.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
      expect(await e.waitClosed()).toBe(true);
    } else {
      expect(answer).toBeNull();
    }
  });

  it("SaslHandshake v0: raw size-prefixed tokens authenticate (pre-1.0 clients); a wrong one closes without an answer", async () => {
    const raw = (token: string): Buffer => {
      const t = Buffer.from(token);
      const prefix = Buffer.alloc(4);
      prefix.writeInt32BE(t.length, 0);
      return Buffer.concat([prefix, t]);
    };
    const c = await RawClient.connect(saslPort);
    expect((await c.request(ApiKey.SaslHandshake, 0, { mechanism: "PLAIN" })).body.errorCode).toBe(ErrorCode.NONE);
    c.write(raw(`\u0000${ALICE.name}\u0000${ALICE.password}`));
    const answer = await c.nextFrame();
    expect(answer?.length).toBe(0); // PLAIN's (empty) server message, size-prefixed
    // Now authenticated: ordinary Kafka requests are served.
    const md = await c.request(ApiKey.Metadata, 8, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.body.brokers.length).toBe(1);
    c.close();

    const d = await RawClient.connect(saslPort);
    await d.request(ApiKey.SaslHandshake, 0, { mechanism: "PLAIN" });
    d.write(raw(`\u0000${ALICE.name}\u0000wrong-password`));
    expect(await d.nextFrame()).toBeNull();
    expect(d.closed).toBe(true);
  });

  it("an unknown mechanism gets UNSUPPORTED_SASL_MECHANISM with the enabled list, then the connection closes", async () => {
    const c = await RawClient.connect(saslPort);
    const hs = await c.request(ApiKey.SaslHandshake, 1, { mechanism: "GSSAPI" });
    // sasl.enabled.mechanisms is PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 (the default); Kafka lists them in its HashMap's order.
    expect(hs.body).toEqual({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ["PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"] });
    expect(await c.waitClosed()).toBe(true);
  });

  it("a wrong password gets SASL_AUTHENTICATION_FAILED (58) with a message, then the connection closes", async () => {
    const c = await RawClient.connect(saslPort);
    await c.request(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" });
    const auth = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`\u0000${ALICE.name}\u0000nope`) });
    expect(auth.body).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: "Authentication failed: Invalid username or password" });
    expect(await c.waitClosed()).toBe(true);
    // Nothing about the attempt reveals the password in the broker log.
    // The embedded broker's log (Kafka's own is not the test's to read).
    if (!oracleRun()) expect(broker.logLines.join("\n")).not.toContain("nope");
  });

  it("SCRAM: a replayed client-final on a new connection is refused; after success SASL requests get ILLEGAL_SASL_STATE", async () => {
    const first = `n=${ALICE.name},r=fixed-client-nonce`;
    const c1 = await RawClient.connect(saslPort);
    await c1.request(ApiKey.SaslHandshake, 1, { mechanism: "SCRAM-SHA-256" });
    const sf1 = await c1.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`n,,${first}`) });
    const serverFirst1 = sf1.body.authBytes.toString();
    expect(serverFirst1).toMatch(/^r=fixed-client-nonce[^,]+,s=[A-Za-z0-9+/=]+,i=4096$/);
    const final1 = scramClientFinal(SCRAM_SHA_256, ALICE.password, first, serverFirst1);
    const done = await c1.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(final1) });
    expect(done.body.errorCode).toBe(ErrorCode.NONE);
    expect(done.body.authBytes.toString()).toMatch(/^v=/);
    expect(done.body.sessionLifetimeMs).toBe(0n);
    expect((await c1.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(final1) })).body.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    expect((await c1.request(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" })).body.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    c1.close();

    const c2 = await RawClient.connect(saslPort);
    await c2.request(ApiKey.SaslHandshake, 1, { mechanism: "SCRAM-SHA-256" });
    const sf2 = await c2.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`n,,${first}`) });
    expect(sf2.body.authBytes.toString()).not.toBe(serverFirst1);
    const replay = await c2.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(final1) });
    expect(replay.body.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(await c2.waitClosed()).toBe(true);
  });

  it("SaslHandshake on the PLAINTEXT listener answers ILLEGAL_SASL_STATE", async () => {
    const c = await RawClient.connect(plainPort);
    try {
      expect((await c.request(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" })).body).toEqual({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
    } finally {
      c.close();
    }
  });
});

describe("DescribeUserScramCredentials / AlterUserScramCredentials", () => {
  it("validate as Kafka does", async () => {
    const admin = await rawPlainLogin(saslPort, ADMIN.name, ADMIN.password);
    try {
      const u = uniqueName("carol");
      const r = await admin.request(ApiKey.AlterUserScramCredentials, 0, {
        deletions: [{ name: "ghost", mechanism: SCRAM_SHA_512.type }],
        upsertions: [
          upsertion(u, SCRAM_SHA_256, "pw", 4096),
          upsertion("few", SCRAM_SHA_256, "pw", 4095),
          upsertion("many", SCRAM_SHA_256, "pw", 16385),
          upsertion("", SCRAM_SHA_256, "pw", 4096),
          { ...upsertion("mech", SCRAM_SHA_256, "pw", 4096), mechanism: 3 },
          upsertion("twice", SCRAM_SHA_256, "pw", 4096),
          upsertion("twice", SCRAM_SHA_512, "pw", 4096),
        ],
      });
      const byUser = new Map(r.body.results.map((x) => [x.user, [x.errorCode, x.errorMessage]]));
      expect(Object.fromEntries(byUser)).toEqual({
        [u]: [ErrorCode.NONE, null],
        ghost: [ErrorCode.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"],
        few: [ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations"],
        many: [ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations"],
        "": [ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"],
        mech: [ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"],
        twice: [ErrorCode.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request"],
      });
      // Successes come first, then the failures (Kafka's order).
      expect(r.body.results[0]?.user).toBe(u);
      // Kafka's brokers describe from their metadata cache, which the controller's commit reaches a moment later.
      await waitFor(async () => (await admin.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: u }] })).body.results[0]?.errorCode === 0, 10_000, `${u}'s credential to be described`);
      const d = await admin.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: u }, { name: "twice" }, { name: ALICE.name }, { name: ALICE.name }] });
      expect(d.body.errorCode).toBe(ErrorCode.NONE);
      const described = {
        [u]: { user: u, errorCode: 0, errorMessage: "", credentialInfos: [{ mechanism: 1, iterations: 4096 }] },
        twice: { user: "twice", errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: "Attempt to describe a user credential that does not exist: twice", credentialInfos: [] },
        [ALICE.name]: { user: ALICE.name, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${ALICE.name}`, credentialInfos: [] },
      };
      // Kafka (ScramImage.describe) collects the users in a HashMap and answers in its iteration order.
      expect(d.body.results).toEqual(javaHashMapOrder([u, "twice", ALICE.name]).map((name) => described[name]));
      const all = await admin.request(ApiKey.DescribeUserScramCredentials, 0, { users: null });
      expect(all.body.results.map((x) => x.user)).toEqual(expect.arrayContaining([ADMIN.name, ALICE.name, u]));
      // Kafka keeps no order among a user's mechanisms (a map keyed by the mechanism enum).
      expect([...(all.body.results.find((x) => x.user === ADMIN.name)?.credentialInfos ?? [])].sort((x, y) => x.mechanism - y.mechanism)).toEqual([
        { mechanism: 1, iterations: 4096 },
        { mechanism: 2, iterations: 4096 },
      ]);
    } finally {
      admin.close();
    }
  });

  it("need DESCRIBE / ALTER on CLUSTER: a user without grants is refused, the super user is not", async () => {
    const alice = await rawPlainLogin(saslPort, ALICE.name, ALICE.password);
    try {
      // Named users: with users null Kafka 4.1 never answers an unauthorized request (its error response iterates the null list).
      const d = await alice.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: ADMIN.name }] });
      // Kafka's error response: one result per named user, without its name.
      expect(d.body).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, results: [{ user: "", errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, credentialInfos: [] }] });
      const a = await alice.request(ApiKey.AlterUserScramCredentials, 0, { deletions: [{ name: ADMIN.name, mechanism: 2 }], upsertions: [upsertion(ALICE.name, SCRAM_SHA_512, "x", 4096)] });
      expect(a.body.results.map((x) => [x.user, x.errorCode])).toEqual([
        [ADMIN.name, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
        [ALICE.name, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
      ]);
    } finally {
      alice.close();
    }
    // Nothing changed: alice's old password still works, admin still exists.
    expect(await adminListTopics(saslBootstrap(), "scram-sha-512", ALICE.name, ALICE.password)).toEqual(expect.any(Array));
    expect(await adminListTopics(saslBootstrap(), "scram-sha-512", ADMIN.name, ADMIN.password)).toEqual(expect.any(Array));
  });

  embeddedOnly("its credential file across a restart").it("users survive a restart; the credential file holds no password", async () => {
    const dataDir = await newDataDir();
    const dave = { name: "dave", password: "dave-pw-55aa" };
    const first = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", saslUsers: [ADMIN] }, dataDir);
    const admin = await rawPlainLogin(first.port, ADMIN.name, ADMIN.password);
    await admin.request(ApiKey.AlterUserScramCredentials, 0, { deletions: [], upsertions: [upsertion(dave.name, SCRAM_SHA_512, dave.password, 4096)] });
    admin.close();
    await first.stop();
    const second = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0" }, dataDir);
    try {
      expect(await adminListTopics(second.bootstrap, "scram-sha-512", dave.name, dave.password)).toEqual(expect.any(Array));
      // The start-up user's credential survives too (PLAIN would need it named at start-up again, as Kafka's JAAS users).
      expect(await adminListTopics(second.bootstrap, "scram-sha-512", ADMIN.name, ADMIN.password)).toEqual(expect.any(Array));
      const text = await readFile(ScramCredentialStore.fileIn(dataDir), "utf8");
      for (const secret of [dave.password, ADMIN.password]) expect(text).not.toContain(secret);
      for (const line of [...first.logLines, ...second.logLines]) expect(line).not.toContain(ADMIN.password);
    } finally {
      await second.cleanup();
    }
  });
});

describe("kcat (librdkafka 2.0.2) with SASL/PLAIN", () => {
  it("produces and consumes with the right credentials and is refused with wrong ones", async () => {
    const topic = uniqueName("sasl-kcat");
    const values = Array.from({ length: 50 }, (_, i) => `record-${i}`);
    const p = await runKcat(saslBootstrap(), ["-P", "-t", topic, "-X", "acks=all", ...kcatSasl(ADMIN.name, ADMIN.password)], values.map((v) => `${v}\n`).join(""));
    expect(p.code, p.stderr).toBe(0);
    const c = await runKcat(saslBootstrap(), ["-C", "-t", topic, "-o", "beginning", "-e", "-f", "%s\n", ...kcatSasl(ADMIN.name, ADMIN.password)]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.split("\n").filter((l) => l !== "")).toEqual(values);

    const bad = await runKcat(saslBootstrap(), ["-L", "-m", "2", ...kcatSasl(ADMIN.name, "wrong-password")]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("Authentication failed: Invalid username or password");
  });

  it("SCRAM with librdkafka 2.0.2 is refused, as by Kafka 4.x: its client-final nonce is not the server-first's (fixed in librdkafka 2.6.1)", async () => {
    const r = await runKcat(saslBootstrap(), ["-L", "-m", "3", ...kcatSasl(ALICE.name, ALICE.password, "SASL_PLAINTEXT", "SCRAM-SHA-512")]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512");
    if (!oracleRun()) await waitFor(() => broker.logLines.some((l) => l.includes("Invalid client nonce in the final client message.")) || (broker.core.sasl.failures.flushLog(), false), 5000, "the nonce refusal in the log");
  });
});

describe("CLI", () => {
  it("--sasl-admin turns on SASL_PLAINTEXT and the authorizer with the admin as super user; --sasl-user adds users; passwords are never printed", async () => {
    const dataDir = await newDataDir();
    // node --import tsx (not npx), so that SIGTERM reaches the broker itself.
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "--port", "0", "--data-dir", dataDir, "--sasl-admin", "root:cli-admin-pw", "--sasl-user", "eve:cli-eve-pw"], {
      cwd: new URL("..", import.meta.url).pathname,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    try {
      const deadline = Date.now() + 20_000;
      while (!/ready on 127\.0\.0\.1:(\d+)/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const port = /ready on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      expect(port, out).toBeDefined();
      expect(out).toContain("SASL_PLAINTEXT://127.0.0.1:");
      const bootstrap = `127.0.0.1:${port}`;
      // The super user may create topics; eve, without ACLs, may not.
      const root = saslKafka(bootstrap, "scram-sha-512", "root", "cli-admin-pw").admin();
      await root.connect();
      await root.createTopics({ topics: [{ topic: "cli-topic" }] });
      await root.disconnect();
      const eve = saslKafka(bootstrap, "scram-sha-256", "eve", "cli-eve-pw").admin();
      await eve.connect();
      await expect(eve.createTopics({ topics: [{ topic: "eve-topic" }] })).rejects.toMatchObject({ errors: [expect.objectContaining({ type: "TOPIC_AUTHORIZATION_FAILED" })] });
      await eve.disconnect();
      await expect(adminListTopics(bootstrap, "plain", "eve", "not-eves")).rejects.toThrow(/Invalid username or password/);
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("close", r));
    }
    expect(out).not.toContain("cli-admin-pw");
    expect(out).not.toContain("cli-eve-pw");
  });
});
