import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  browseMessages,
  browseStateKeys,
  createServiceAccount,
  loadActor,
  lookupStateKey,
  registerProduct,
  requestSubscription,
  submitForReview,
  type Db,
} from "../src/index.ts";
import type { SourceRecord } from "../src/records/source.ts";
import { openTestDatabase, productInput, recordsSource, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 6: the message browser and the state view masked the
 * classified fields of values but showed the record key when the key is a PII
 * field, every header, and values that do not match the schema (an array
 * holding an e-mail where the schema has a number). For a subscriber without
 * PII access: the key is masked by the same rule as values, headers are
 * hidden, and records whose values do not match the schema are withheld and
 * counted. Owners (PII access) still see everything.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let productId = "";
const TOPIC_RECORDS: SourceRecord[] = [];

const schema = JSON.stringify({
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { email: { type: "string", "x-pii": true }, amount: { type: "number" } },
  required: ["email", "amount"],
});

const record = (offset: number, key: string, value: unknown, headers: Record<string, string>): SourceRecord => ({
  partition: 0,
  offset: BigInt(offset),
  timestamp: BigInt(1_770_000_000_000 + offset),
  timestampType: "CreateTime",
  key: Buffer.from(key),
  value: Buffer.from(JSON.stringify(value)),
  headers: Object.entries(headers).map(([k, v]) => ({ key: k, value: Buffer.from(v) })),
});

const source = recordsSource(TOPIC_RECORDS);
const options = { budgetMs: 10_000, ratePerMinute: 1_000 };
const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  const p = await registerProduct(
    db,
    ctx.as.ordersOwner,
    productInput(ctx.orders.id, { name: "Customer Balances", classification: "CONFIDENTIAL", cleanupPolicy: "compact", partitions: 1, keyFields: ["email"], schema: { format: "JSON_SCHEMA", definition: schema } }),
  );
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  productId = p.id;
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-balances" });
  const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: account.id, purpose: "Reconcile balances against payments." });
  await approveSubscription(db, ctx.as.ordersOwner, sub.id);

  TOPIC_RECORDS.push(
    record(0, "alice@example.com", { email: "alice@example.com", amount: 3 }, { "customer-email": "alice@example.com" }),
    // Off-schema: the e-mail sits in an array where the schema has a number.
    record(1, "bob@example.com", { email: "bob@example.com", amount: ["bob@example.com"] }, {}),
    record(2, "carol@example.com", { email: "carol@example.com", amount: 7 }, {}),
  );
  for (const r of TOPIC_RECORDS) {
    await db.stateEntry.create({
      data: {
        productId,
        key: new Uint8Array(r.key!),
        value: new Uint8Array(r.value!),
        partition: 0,
        offset: r.offset,
        timestamp: new Date(Number(r.timestamp)),
        headers: r.headers.map((h) => ({ key: h.key, value: h.value?.toString("base64") ?? null })),
      },
    });
  }
});
afterAll(async () => dispose());

const subscriber = () => loadActor(db, ctx.people.paymentsMember.id);
const owner = () => loadActor(db, ctx.people.ordersOwner.id);

describe("a subscriber without PII access", () => {
  it("message browser: the PII key is masked, headers are hidden, the off-schema record is withheld and counted; no e-mail leaves the server", async () => {
    const page = await browseMessages(db, await subscriber(), productId, { direction: "forward", offset: "0" }, source, options);
    expect(page).toMatchObject({ piiVisible: false, keyMasked: true, headersHidden: true, withheld: 1 });
    expect(page.records.map((r) => r.offset)).toEqual([0n, 2n]);
    for (const r of page.records) {
      expect(r.key).toEqual({ text: "[masked]", hex: null });
      expect(r.headers).toEqual([]);
      expect(r.value.value).toMatchObject({ email: "[masked]" });
    }
    expect(json(page)).not.toMatch(/@example\.com/);
  });

  it("state view: keys masked, headers hidden, the off-schema entry withheld, paging by position and no search by prefix", async () => {
    const actor = await subscriber();
    const first = await browseStateKeys(db, actor, productId, { limit: 2 });
    expect(first).toMatchObject({ keyMasked: true, headersHidden: true, withheld: 1, nextAfter: "#2" });
    expect(first.entries).toHaveLength(1);
    const second = await browseStateKeys(db, actor, productId, { limit: 2, after: first.nextAfter });
    expect(second).toMatchObject({ withheld: 0, nextAfter: null });
    expect(second.entries).toHaveLength(1);
    expect(json([first, second])).not.toMatch(/@example\.com|616c696365/);
    await expect(browseStateKeys(db, actor, productId, { prefix: "alice" })).rejects.toMatchObject({ status: 400, fields: { prefix: [expect.stringContaining("PII")] } });
    await expect(browseStateKeys(db, actor, productId, { after: Buffer.from("alice@example.com").toString("hex") })).rejects.toMatchObject({ status: 400 });
    const one = await lookupStateKey(db, actor, productId, "alice@example.com");
    expect(one).toMatchObject({ key: { text: "[masked]", hex: null }, headers: [], value: { value: { email: "[masked]", amount: 3 } } });
    const offSchema = await lookupStateKey(db, actor, productId, "bob@example.com");
    expect(offSchema.value).toMatchObject({ encoding: "withheld", value: null });
    expect(json(offSchema)).not.toMatch(/bob@example\.com/);
  });
});

describe("the owning domain (PII access)", () => {
  it("sees keys, headers and every record as written", async () => {
    const page = await browseMessages(db, await owner(), productId, { direction: "forward", offset: "0" }, source, options);
    expect(page).toMatchObject({ piiVisible: true, keyMasked: false, headersHidden: false, withheld: 0 });
    expect(page.records.map((r) => r.key?.text)).toEqual(["alice@example.com", "bob@example.com", "carol@example.com"]);
    expect(page.records[0]?.headers).toEqual([{ key: "customer-email", value: { text: "alice@example.com", hex: null } }]);
    expect(page.records[1]?.value.value).toEqual({ email: "bob@example.com", amount: ["bob@example.com"] });
    const keys = await browseStateKeys(db, await owner(), productId, { limit: 2, prefix: "" });
    expect(keys.nextAfter).toBe(Buffer.from("bob@example.com").toString("hex"));
  });
});
