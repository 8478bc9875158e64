import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { KafkaJsCluster } from "../src/kafka/kafkajs-cluster.ts";
import { silentLogger } from "../src/log.ts";
import { Worker } from "../src/worker.ts";
import { approvedProduct, openTestDatabase, seedPeople, startTestBroker, waitFor, type TestBroker } from "./helpers.ts";
import { workerOptions } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "tls-admin-secret" };
let dir: string;
let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;

beforeAll(async () => {
  // A CA and a broker certificate for 127.0.0.1, made with openssl as production would.
  dir = mkdtempSync(path.join(tmpdir(), "kappa-worker-tls-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=kappa-test-ca");
  run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1");
  writeFileSync(path.join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run("x509", "-req", "-in", "broker.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "broker.pem", "-days", "2", "-extfile", "san.ext");
  broker = await startTestBroker({
    listeners: "SASL_SSL://127.0.0.1:0",
    "ssl.certificate.location": path.join(dir, "broker.pem"),
    "ssl.key.location": path.join(dir, "broker.key"),
    "authorizer.class.name": "standard",
    "super.users": `User:${ADMIN.name}`,
    saslUsers: [ADMIN],
  });
  database = await openTestDatabase();
  db = database.db;
});

afterAll(async () => {
  await database?.dispose();
  await broker?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("TLS (SASL_SSL)", () => {
  it("provisions over SASL_SSL with the CA from KAFKA_SSL_CA_FILE, kafkajs and raw connections alike", async () => {
    const people = await seedPeople(db);
    const cluster = new KafkaJsCluster(
      { brokers: [broker.bootstrap], sasl: { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password }, ssl: true, caFile: path.join(dir, "ca.pem"), clientId: "tls-test" },
      silentLogger,
    );
    const worker = new Worker(db, cluster, workerOptions(), silentLogger);
    await worker.start();
    try {
      const product = await approvedProduct(db, people, { partitions: 2 });
      // Topic (raw CreateTopics), credentials (raw AlterUserScramCredentials) and ACLs (kafkajs) all over TLS.
      await waitFor(async () => (await db.dataProduct.findUnique({ where: { id: product.id } }))?.status === "ACTIVE", 10_000, "the product to be ACTIVE over TLS");
      expect((await cluster.partitionCounts([product.topicName])).get(product.topicName)).toBe(2);
    } finally {
      await worker.stop();
      await cluster.close();
    }
  });

  it("refuses a broker whose certificate the configured CA did not sign", async () => {
    const otherDir = mkdtempSync(path.join(tmpdir(), "kappa-worker-tls-other-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "k", "-out", "other-ca.pem", "-days", "2", "-subj", "/CN=other"], { cwd: otherDir, stdio: "pipe" });
      const cluster = new KafkaJsCluster(
        { brokers: [broker.bootstrap], sasl: { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password }, ssl: true, caFile: path.join(otherDir, "other-ca.pem"), clientId: "tls-test", connectionTimeoutMs: 2000 },
        silentLogger,
      );
      await expect(cluster.describeScramUsers([ADMIN.name])).rejects.toThrow(/certificate/i);
      await cluster.close();
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
