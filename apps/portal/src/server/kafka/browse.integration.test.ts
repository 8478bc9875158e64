// The message browser end to end below the HTTP layer: the portal server's
// reader (the message browser's principal, READ/DESCRIBE only, by partition)
// against the real broker, the catalog's access rules, decoding and masking on
// real PostgreSQL. The worker issues the principal in production
// (packages/worker/test/message-browser-principal.integration.test.ts); here
// the test creates it the same way on the broker. The broker is the project's
// own, run as a separate program with the repository's `npm run broker`
// command (the portal depends on the catalog only, not on the broker package).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import avro from "avsc";
import kafkajs from "kafkajs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browseMessages, loadActor, type Db } from "@kappa/catalog";
import { createTestDatabase } from "@kappa/catalog/testing";
// Brings the `pgAdminUrl` the global setup provides into inject()'s types.
import type {} from "@kappa/catalog/testing/global-setup";
import { KafkaRecordSource } from "./record-source";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };
const READER = { name: "kappa-message-browser", password: "reader-secret-for-tests" };
const TOPIC = "orders.customer-events.v1";

const schema = {
  type: "record",
  name: "CustomerEvent",
  namespace: "orders",
  fields: [
    { name: "id", type: "string" },
    { name: "email", type: "string", pii: true },
    { name: "address", type: ["null", { type: "record", name: "Address", fields: [{ name: "street", type: "string", pii: true }, { name: "city", type: "string" }] }], default: null },
    { name: "amount", type: "int" },
  ],
};
const type = avro.Type.forSchema(schema as avro.Schema);

let dir: string;
let broker: { process: ChildProcess; bootstrap: string } | null = null;
let db: Db;
let dispose: () => Promise<void>;
let source: KafkaRecordSource;
let productId = "";
let schemaId = 0;
let base = 0;
const as: Record<string, string> = {};
const produced: { partition: number; key: string; value: Record<string, unknown> }[] = [];

function framed(schemaId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, payload]);
}

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../../..");

/** Runs `npm run broker -- <args>` from the repository's root, in its own process group, until it says it is ready. */
async function startBrokerProcess(args: string[]): Promise<{ process: ChildProcess; bootstrap: string }> {
  const child = spawn("npm", ["run", "--silent", "broker", "--", ...args], { cwd: REPO_ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let ready = false;
  const bootstrap = await new Promise<string>((resolve, reject) => {
    // Read to the end either way: a full pipe would block the broker's log writes.
    const onData = (chunk: Buffer) => {
      if (ready) return;
      output += chunk.toString("utf8");
      const line = /kappa-broker ready on (\S+)/.exec(output);
      if (line) {
        ready = true;
        resolve(line[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`the broker exited (${code ?? signal}) before it was ready:\n${output}`)));
  });
  return { process: child, bootstrap };
}

/** SIGTERM to the broker's process group (npm, tsx and the broker), then waits until none of it is left. */
async function stopBrokerProcess(child: ChildProcess): Promise<void> {
  const group = -child.pid!;
  const alive = (): boolean => {
    try {
      process.kill(group, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(group, "SIGTERM");
  const deadline = Date.now() + 20_000;
  while (alive()) {
    if (Date.now() > deadline) process.kill(group, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kappa-portal-broker-"));
  broker = await startBrokerProcess([
    ...["--host", "127.0.0.1", "--port", "0", "--data-dir", dir],
    // A SASL_PLAINTEXT listener and the ACL authorizer with the admin as super user; the reader an ordinary user.
    ...["--sasl-admin", `${ADMIN.name}:${ADMIN.password}`, "--sasl-user", `${READER.name}:${READER.password}`],
    ...["--override", "auto.create.topics.enable=false"],
  ]);
  ({ db, dispose } = await createTestDatabase(inject("pgAdminUrl")));
  const registered = await db.registrySchema.create({ data: { format: "AVRO", identity: "test-identity", normalized: JSON.stringify(schema), canonicalForm: JSON.stringify(schema), fingerprint: "0".repeat(64) } });
  schemaId = registered.id;

  const kafka = new kafkajs.Kafka({ clientId: "browse-test", brokers: [broker.bootstrap], sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password }, logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
  // What the worker grants the message browser: READ and DESCRIBE on the product topic, nothing else.
  await admin.createAcls({
    acl: ["READ", "DESCRIBE"].map((op) => ({
      resourceType: kafkajs.AclResourceTypes.TOPIC,
      resourceName: TOPIC,
      resourcePatternType: kafkajs.ResourcePatternTypes.LITERAL,
      principal: `User:${READER.name}`,
      host: "*",
      operation: op === "READ" ? kafkajs.AclOperationTypes.READ : kafkajs.AclOperationTypes.DESCRIBE,
      permissionType: kafkajs.AclPermissionTypes.ALLOW,
    })),
  });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  base = Date.now() - 60_000;
  for (let i = 0; i < 30; i++) {
    const partition = i % 2;
    const value = { id: `c${i}`, email: `c${i}@example.com`, address: i % 3 === 0 ? null : { street: `${i} Main St`, city: "Zurich" }, amount: i * 10 };
    produced.push({ partition, key: `customer-${i % 7}`, value });
    await producer.send({ topic: TOPIC, messages: [{ partition, key: `customer-${i % 7}`, value: i % 2 === 0 ? framed(schemaId, type.toBuffer(value)) : type.toBuffer(value), timestamp: String(base + i * 1000), headers: { source: "test" } }] });
  }
  // One value that is not Avro at all.
  await producer.send({ topic: TOPIC, messages: [{ partition: 1, key: "junk", value: Buffer.from("not <avro> \u0001"), timestamp: String(base + 40_000) }] });
  await producer.disconnect();

  const orders = await db.domain.create({ data: { slug: "orders", name: "Orders" } });
  const payments = await db.domain.create({ data: { slug: "payments", name: "Payments" } });
  const risk = await db.domain.create({ data: { slug: "risk", name: "Risk" } });
  for (const [who, domain] of [["owner", orders], ["subscriber", payments], ["piiSubscriber", risk], ["outsider", null]] as const) {
    const u = await db.user.create({ data: { email: `${who}@test`, name: who } });
    as[who] = u.id;
    if (domain) await db.membership.create({ data: { userId: u.id, domainId: domain.id, role: "OWNER" } });
  }
  const reviewer = await db.user.create({ data: { email: "reviewer@test", name: "reviewer", globalRole: "GOVERNANCE" } });
  as.reviewer = reviewer.id;
  const product = await db.dataProduct.create({
    data: { domainId: orders.id, name: "Customer Events", slug: "customer-events", description: "Every change to a customer.", classification: "CONFIDENTIAL", tags: [], freshnessSeconds: 60, availabilityPct: 99.9, partitions: 2, topicName: TOPIC, status: "ACTIVE", contactEmail: "owner@test", createdById: as.owner! },
  });
  productId = product.id;
  await db.schemaVersion.create({ data: { productId, version: 1, format: "AVRO", status: "APPROVED", definition: JSON.stringify(schema), schemaId } });
  for (const [domain, pii] of [[payments, false], [risk, true]] as const) {
    const account = await db.serviceAccount.create({ data: { domainId: domain.id, name: `${domain.slug}-app` } });
    await db.subscription.create({
      data: { productId, consumingDomainId: domain.id, serviceAccountId: account.id, purpose: "Reconcile payments against customers.", status: "ACTIVE", requestedById: as.owner!, piiRequested: pii, piiApprovedAt: pii ? new Date() : null, piiApprovedById: pii ? reviewer.id : null },
    });
  }
  source = new KafkaRecordSource({ brokers: [broker.bootstrap], sasl: { mechanism: "SCRAM-SHA-512", username: READER.name, password: READER.password }, tls: null });
});

afterAll(async () => {
  source?.close();
  await dispose?.();
  if (broker) await stopBrokerProcess(broker.process);
  await rm(dir, { recursive: true, force: true });
});

const options = { budgetMs: 10_000, ratePerMinute: 1000 };
const browse = async (who: string, query: Record<string, string>) => browseMessages(db, await loadActor(db, as[who]!), productId, query, source, options);

describe("message browser", () => {
  it("returns exactly the produced records, decoded, unmasked for the owner, in timestamp order across partitions", async () => {
    const page = await browse("owner", { offset: "0", limit: "100" });
    expect(page.order).toBe("oldest-first");
    expect(page.records).toHaveLength(31);
    const decoded = page.records.filter((r) => r.key?.text !== "junk");
    expect(decoded.map((r) => r.value.value)).toEqual(produced.map((p) => p.value));
    expect(decoded.map((r) => [r.partition, r.key?.text])).toEqual(produced.map((p) => [p.partition, p.key]));
    expect(decoded[0]?.value).toMatchObject({ encoding: "avro", wire: "confluent", schemaId, schemaVersion: 1, masked: [], note: null });
    expect(decoded[1]?.value).toMatchObject({ encoding: "avro", wire: "plain" });
    expect(decoded[0]?.headers).toEqual([{ key: "source", value: { text: "test", hex: null } }]);
    const junk = page.records.find((r) => r.key?.text === "junk");
    expect(junk?.value.undecodable?.reason).toMatch(/Does not decode/);
    expect(junk?.value.undecodable?.raw?.escaped).toBe("not <avro> \\x01");
    expect(page.piiVisible).toBe(true);
  });

  it("masks PII for a subscriber without PII approval, and not for one whose PII need governance approved", async () => {
    const page = await browse("subscriber", { offset: "0", limit: "100" });
    const first = page.records.find((r) => r.key?.text === "customer-1");
    expect(first?.value.value).toEqual({ id: "c1", email: "[masked]", address: { street: "[masked]", city: "Zurich" }, amount: 10 });
    expect(page.records.every((r) => !JSON.stringify(r.value).includes("@example.com"))).toBe(true);
    expect(page.sensitivePaths).toEqual(["address.street", "email"]);
    // The undecodable value's bytes are withheld: they could not be masked.
    expect(page.records.find((r) => r.key?.text === "junk")?.value.undecodable).toMatchObject({ raw: null, rawWithheld: true });
    const approved = await browse("piiSubscriber", { offset: "0", limit: "3" });
    expect(approved.records[0]?.value.value).toMatchObject({ email: "c0@example.com" });
  });

  it("refuses everyone else: another domain, governance", async () => {
    await expect(browse("outsider", {})).rejects.toMatchObject({ status: 403 });
    await expect(browse("reviewer", {})).rejects.toMatchObject({ status: 403 });
  });

  it("pages forwards and backwards with cursors, filters by key and starts at a timestamp", async () => {
    const first = await browse("owner", { offset: "0", limit: "10" });
    const second = await browse("owner", { cursor: first.next ?? "", limit: "10" });
    const rest = await browse("owner", { cursor: second.next ?? "", limit: "100" });
    const all = [...first.records, ...second.records, ...rest.records].map((r) => `${r.partition}:${r.offset}`);
    expect(new Set(all).size).toBe(31);
    expect(rest.next).toBeNull();

    const newest = await browse("owner", { limit: "5" });
    expect(newest.order).toBe("newest-first");
    expect(newest.records[0]?.key?.text).toBe("junk");
    const older = await browse("owner", { cursor: newest.previous ?? "", limit: "5" });
    expect(older.records.map((r) => r.value.value)).toEqual(produced.slice(21, 26).reverse().map((p) => p.value));

    const byKey = await browse("owner", { offset: "0", key: "customer-3", limit: "100" });
    expect(byKey.records.map((r) => (r.value.value as { id: string }).id)).toEqual(["c3", "c10", "c17", "c24"]);

    const fromTime = await browse("owner", { timestamp: String(base + 25_500), limit: "100", partition: "0" });
    expect(fromTime.records.map((r) => (r.value.value as { id: string }).id)).toEqual(["c26", "c28"]);
    await expect(browse("owner", { partition: "7" })).rejects.toMatchObject({ status: 400, fields: { partition: [expect.stringContaining("has no partition 7")] } });
    await expect(browse("owner", { limit: "501" })).rejects.toMatchObject({ status: 400 });
    await expect(browse("owner", { cursor: "garbage" })).rejects.toMatchObject({ status: 400 });
  });

  it("audits every page with who, which product and which ranges; enforces the rate limit", async () => {
    const events = await db.auditEvent.findMany({ where: { entityId: productId, action: "product.messages-browsed" }, orderBy: { id: "asc" } });
    expect(events.length).toBeGreaterThanOrEqual(9);
    expect(events[0]).toMatchObject({ actorEmail: "owner@test" });
    expect(events[0]?.data).toMatchObject({ topic: TOPIC, direction: "forward", records: 31, ranges: [{ partition: 0, from: "0", to: "15" }, { partition: 1, from: "0", to: "16" }] });
    const actor = await loadActor(db, as.subscriber!);
    const limited = { budgetMs: 10_000, ratePerMinute: 2 };
    const browse = () => browseMessages(db, actor, productId, { limit: "1" }, source, limited);
    // The limit counts per wall-clock minute: two pages (whatever the earlier tests left in this minute), then the
    // third is refused — asked again in the next minute when the three straddled a minute's end.
    for (let attempt = 1; ; attempt++) {
      const minute = Math.floor(Date.now() / 60_000);
      await browse().catch(() => undefined);
      await browse().catch(() => undefined);
      const third = await browse().then(
        () => null,
        (error: unknown) => error,
      );
      if (attempt < 2 && Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(third).toMatchObject({ status: 429, code: "RATE_LIMITED" });
      break;
    }
  });
});
