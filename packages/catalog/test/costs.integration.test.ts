import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  createServiceAccount,
  defaultPolicySource,
  listCosts,
  loadActor,
  parseMicros,
  productCost,
  recordUsageDay,
  recordUsageLedger,
  registerProduct,
  requestSubscription,
  submitForReview,
  updatePolicy,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * The usage ledger and the costs on the real database. The observation rows
 * stand for what the worker's observer writes each minute (its own tests
 * drive them from the broker); the clock is explicit.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let analytics: { id: string };
let product: { id: string; topicName: string };
let storageOnly: { id: string };
let toPayments: { id: string };
let toAnalytics: { id: string };

const at = (iso: string) => new Date(`${iso}Z`);
const topicSample = (topic: string, iso: string, endOffset: number, localBytes = 200_000, remoteBytes = 50_000) =>
  db.topicObservationSample.create({ data: { topic, bucket: at(iso), endOffset: BigInt(endOffset), earliestOffset: 0n, localBytes: BigInt(localBytes), remoteBytes: BigInt(remoteBytes) } });
const groupSample = (groupId: string, topic: string, subscriptionId: string, iso: string, committed: number) =>
  db.consumerGroupObservationSample.create({ data: { groupId, topic, bucket: at(iso), totalLag: 0n, committedOffset: BigInt(committed), subscriptionId } });
const rows = (day: string) => db.usageRecord.findMany({ where: { day: new Date(`${day}T00:00:00Z`) }, orderBy: { subscriptionId: "asc" } });

async function approvedProduct(name: string, domainId: string, owner: { userId: string }) {
  const p = await registerProduct(db, owner, productInput(domainId, { name, partitions: 2 }));
  await submitForReview(db, owner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  return p;
}

async function subscribe(domainId: string, owner: { userId: string }, account: string) {
  const a = await createServiceAccount(db, owner, { domainId, name: account });
  const sub = await requestSubscription(db, owner, { productId: product.id, serviceAccountId: a.id, purpose: "Reconcile payments against orders, daily." });
  await approveSubscription(db, ctx.as.ordersOwner, sub.id);
  return sub;
}

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  analytics = await db.domain.create({ data: { slug: "analytics", name: "Analytics" } });
  const analyst = await db.user.create({ data: { email: "owner@analytics.test", name: "analyst" } });
  await db.membership.create({ data: { userId: analyst.id, domainId: analytics.id, role: "OWNER" } });
  product = await approvedProduct("Order Events", ctx.orders.id, ctx.as.ordersOwner);
  storageOnly = await approvedProduct("Payment Archive", ctx.payments.id, ctx.as.paymentsOwner);
  toPayments = await subscribe(ctx.payments.id, ctx.as.paymentsOwner, "payments-reader");
  toAnalytics = await subscribe(analytics.id, { userId: analyst.id }, "analytics-reader");
  // The latest observation: 100 bytes per record held locally.
  await db.topicObservation.create({ data: { topic: product.topicName, productId: product.id, partitions: 2, endOffset: 10_000n, earliestOffset: 0n, earliestLocalOffset: 0n, localBytes: 1_000_000n } });
});
afterAll(async () => dispose());

describe("the usage ledger", () => {
  it("turns a day of observations into one row per product and per subscription", async () => {
    const t = product.topicName;
    await topicSample(t, "2026-11-09T23:55:00", 1000, 100_000, 0);
    for (let h = 0; h < 24; h++) await topicSample(t, `2026-11-10T${String(h).padStart(2, "0")}:00:00`, 1000 + 100 * (h + 1));
    await groupSample("payments-reader.app", t, toPayments.id, "2026-11-09T23:55:00", 500);
    await groupSample("payments-reader.app", t, toPayments.id, "2026-11-10T12:00:00", 1500);
    await groupSample("payments-reader.app", t, toPayments.id, "2026-11-10T23:00:00", 2500);
    await groupSample("analytics-reader.app", t, toAnalytics.id, "2026-11-10T01:00:00", 0);
    await groupSample("analytics-reader.app", t, toAnalytics.id, "2026-11-10T23:00:00", 500);

    expect(await recordUsageDay(db, "2026-11-10")).toMatchObject({ products: 1, subscriptions: 2, written: 3 });
    const [own, ...subs] = await rows("2026-11-10");
    // From 1000 (the sample 5 minutes before the day) to 3400; observed from midnight to 23:01.
    expect(own).toMatchObject({ productId: product.id, subscriptionId: "", domainId: ctx.orders.id, recordsIn: 2400n, bytesIn: 240_000n, observedMinutes: 1381, partitionMinutes: 2762n, revision: 1 });
    expect(own?.localByteHours).toBe(BigInt(Math.round((200_000 * 1381) / 60)));
    expect(own?.remoteByteHours).toBe(BigInt(Math.round((50_000 * 1381) / 60)));
    const bySub = new Map(subs.map((s) => [s.subscriptionId, s]));
    expect(bySub.get(toPayments.id)).toMatchObject({ consumingDomainId: ctx.payments.id, recordsOut: 2000n, bytesOut: 200_000n });
    // No sample before the day: measured from the day's first.
    expect(bySub.get(toAnalytics.id)).toMatchObject({ consumingDomainId: analytics.id, recordsOut: 500n, bytesOut: 50_000n });
  });

  it("a late observation corrects the day; computing again never adds twice", async () => {
    const t = product.topicName;
    await topicSample(t, "2026-11-10T23:45:00", 3600);
    await groupSample("payments-reader.app", t, toPayments.id, "2026-11-10T23:45:00", 2600);
    expect((await recordUsageDay(db, "2026-11-10")).written).toBe(2);
    expect((await recordUsageDay(db, "2026-11-10")).written).toBe(0);
    const day = await rows("2026-11-10");
    expect(day).toHaveLength(3);
    expect(day.find((r) => r.subscriptionId === "")).toMatchObject({ recordsIn: 2600n, bytesIn: 260_000n, observedMinutes: 1426, revision: 2 });
    expect(day.find((r) => r.subscriptionId === toPayments.id)).toMatchObject({ recordsOut: 2100n, revision: 2 });
    expect(day.find((r) => r.subscriptionId === toAnalytics.id)).toMatchObject({ recordsOut: 500n, revision: 1 });

    // The next day is measured from the last sample of this one: the two days add up to the growth, once.
    await topicSample(t, "2026-11-11T00:30:00", 3700);
    await topicSample(t, "2026-11-11T10:00:00", 4000);
    await recordUsageDay(db, "2026-11-11");
    const next = (await rows("2026-11-11")).find((r) => r.subscriptionId === "");
    expect(next?.recordsIn).toBe(400n);
    const total = await db.usageRecord.aggregate({ _sum: { recordsIn: true }, where: { productId: product.id } });
    expect(total._sum.recordsIn).toBe(4000n - 1000n);
  });

  it("the worker's step recomputes today, and yesterday only while its observations are kept", async () => {
    const now = Date.parse("2026-11-11T10:30:00Z");
    expect((await recordUsageLedger(db, { now, historyHours: 48 })).map((r) => r.day)).toEqual(["2026-11-10", "2026-11-11"]);
    expect((await recordUsageLedger(db, { now, historyHours: 12 })).map((r) => r.day)).toEqual(["2026-11-11"]);
  });
});

describe("GET /api/v1/costs (listCosts)", () => {
  beforeAll(async () => {
    // Five GB held locally for the whole of November on a product nobody reads.
    await db.usageRecord.create({ data: { day: new Date("2026-11-12T00:00:00Z"), productId: storageOnly.id, domainId: ctx.payments.id, localByteHours: 5_000_000_000n * 720n, partitionMinutes: 2n * 1440n, observedMinutes: 1440 } });
    // A month before, for the trend.
    await db.usageRecord.create({ data: { day: new Date("2026-10-20T00:00:00Z"), productId: storageOnly.id, domainId: ctx.payments.id, localByteHours: 1_000_000_000n * 744n } });
  });

  const sum = (xs: string[]) => xs.reduce((s, x) => s + parseMicros(x), 0n);

  it("admins see every domain; the domains add up to the platform total, the split to each product's cost", async () => {
    const costs = await listCosts(db, await loadActor(db, ctx.people.admin.id), { month: "2026-11" });
    expect(costs).toMatchObject({ month: "2026-11", currency: "EUR", chargeback: "consumers", scope: "platform" });
    expect(costs.domains.map((d) => d.slug)).toEqual(["analytics", "orders", "payments"]);
    expect(parseMicros(costs.platformTotal ?? "")).toBeGreaterThan(0n);
    expect(sum(costs.domains.map((d) => d.total))).toBe(parseMicros(costs.platformTotal ?? ""));
    expect(costs.total).toBe(costs.platformTotal);

    const orders = costs.domains.find((d) => d.slug === "orders");
    const events = orders?.products.find((p) => p.id === product.id);
    // Consumers pay all of it, by what they read (2100 and 500 records on 11-10: 210,000 and 50,000 bytes).
    expect(events?.split.map((s) => [s.slug, s.bytesRead])).toEqual([["analytics", 50_000], ["payments", 210_000]]);
    expect(sum(events?.split.map((s) => s.amount) ?? [])).toBe(parseMicros(events?.cost.total ?? ""));
    expect(events?.producerShare).toBe("0.000000");
    expect(orders?.total).toBe("0.000000");
    const [analyticsShare, paymentsShare] = (events?.split ?? []).map((s) => Number(parseMicros(s.amount)));
    expect(Math.abs((paymentsShare ?? 0) / (analyticsShare ?? 1) - 210 / 50)).toBeLessThan(0.01);
    const c = events?.cost;
    expect(sum(c ? [c.hotStorage, c.tieredStorage, c.in, c.out, c.partitions] : [])).toBe(parseMicros(c?.total ?? ""));
    // 2 partitions × (1426 + 600 + 1 minutes) observed on 11-10 and 11-11, at 0.0015 per partition-hour.
    expect(events?.usage.partitionHours).toBeCloseTo((2 * (1426 + 601)) / 60, 5);

    const payments = costs.domains.find((d) => d.slug === "payments");
    // The unread archive stays with its producer: 5 GB-month at 0.10 plus 48 partition-hours at 0.0015.
    expect(payments?.products.find((p) => p.id === storageOnly.id)).toMatchObject({ usage: { hotStorageGbMonth: 5 }, cost: { hotStorage: "0.500000", partitions: "0.072000", total: "0.572000" }, producerShare: "0.572000", split: [] });
    expect(payments?.charges).toEqual([expect.objectContaining({ productId: product.id, producerDomain: "orders", bytesRead: 210_000, amount: events?.split.find((s) => s.slug === "payments")?.amount })]);
    expect(parseMicros(payments?.total ?? "")).toBe(parseMicros("0.572000") + parseMicros(events?.split.find((s) => s.slug === "payments")?.amount ?? ""));
    expect(payments?.trend).toEqual([
      { month: "2026-06", total: "0.000000" },
      { month: "2026-07", total: "0.000000" },
      { month: "2026-08", total: "0.000000" },
      { month: "2026-09", total: "0.000000" },
      { month: "2026-10", total: "0.100000" },
      { month: "2026-11", total: payments?.total },
    ]);
  });

  it("others see their own domains only; the total is theirs, the platform total is not shown", async () => {
    const costs = await listCosts(db, await loadActor(db, ctx.people.paymentsMember.id), { month: "2026-11" });
    expect(costs.scope).toBe("domains");
    expect(costs.domains.map((d) => d.slug)).toEqual(["payments"]);
    expect(costs.platformTotal).toBeNull();
    expect(costs.total).toBe(costs.domains[0]?.total);
    const outsider = await db.user.create({ data: { email: "nobody@x.test", name: "nobody" } });
    expect(await listCosts(db, await loadActor(db, outsider.id), { month: "2026-11" })).toMatchObject({ domains: [], total: "0.000000", platformTotal: null });
  });

  it("an invalid month is refused naming the field", async () => {
    const admin = await loadActor(db, ctx.people.admin.id);
    for (const month of ["2026-13", "2026-1", "november", ""]) {
      await expect(listCosts(db, admin, { month })).rejects.toMatchObject({ status: 400, fields: { month: [expect.stringContaining("YYYY-MM")] } });
    }
  });

  it("the product page's figure: this month and the trend, for the product's domain only", async () => {
    const now = Date.parse("2026-11-20T12:00:00Z");
    const admin = await listCosts(db, await loadActor(db, ctx.people.admin.id), { month: "2026-11" });
    const events = admin.domains.flatMap((d) => d.products).find((p) => p.id === product.id);
    const mine = await productCost(db, await loadActor(db, ctx.people.ordersOwner.id), product.id, now);
    expect(mine).toMatchObject({ month: "2026-11", currency: "EUR", total: events?.cost.total, chargedToConsumers: events?.cost.total, producerShare: "0.000000" });
    expect(mine.trend.map((t) => t.month)).toEqual(["2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11"]);
    await expect(productCost(db, await loadActor(db, ctx.people.paymentsOwner.id), product.id, now)).rejects.toMatchObject({ status: 403 });
  });

  it("with the producer rule the producing domain bears its products' cost, and the sum still holds", async () => {
    await updatePolicy(db, ctx.as.admin, { source: defaultPolicySource().replace("rule: consumers", "rule: producer"), reason: "Producers pay for now." });
    const costs = await listCosts(db, await loadActor(db, ctx.people.admin.id), { month: "2026-11" });
    expect(costs.chargeback).toBe("producer");
    const orders = costs.domains.find((d) => d.slug === "orders");
    const events = orders?.products.find((p) => p.id === product.id);
    expect(orders?.total).toBe(events?.cost.total);
    expect(events?.split.map((s) => s.amount)).toEqual(["0.000000", "0.000000"]);
    expect(costs.domains.find((d) => d.slug === "analytics")?.total).toBe("0.000000");
    expect(sum(costs.domains.map((d) => d.total))).toBe(parseMicros(costs.platformTotal ?? ""));
  });
});

describe("the demo seed", () => {
  it("gives the Costs page last month's figures, split to the consuming domain, adding up", async () => {
    const { db: demo, dispose: close } = await openTestDatabase();
    try {
      const { seedDemoData } = await import("../../../prisma/seed.ts");
      const { DEMO_USAGE_DAYS } = await import("../../../prisma/demo-usage.ts");
      await seedDemoData(demo);
      const admin = await demo.user.findUniqueOrThrow({ where: { email: "admin@kappa.example" } });
      const now = new Date();
      const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
      const costs = await listCosts(demo, await loadActor(demo, admin.id), { month: lastMonth });
      expect(DEMO_USAGE_DAYS).toBeGreaterThanOrEqual(31);
      expect(costs.domains.map((d) => d.slug)).toEqual(["orders", "payments"]);
      const events = costs.domains[0]?.products.find((p) => p.name === "Order Events");
      expect(parseMicros(events?.cost.total ?? "0.000000")).toBeGreaterThan(1_000_000n);
      expect(events?.split).toEqual([expect.objectContaining({ slug: "payments", amount: events?.cost.total })]);
      expect(costs.domains.every((d) => d.products.length > 0)).toBe(true);
      expect(costs.domains.reduce((s, d) => s + parseMicros(d.total), 0n)).toBe(parseMicros(costs.platformTotal ?? ""));
      expect(costs.trend.filter((t) => parseMicros(t.total) > 0n).length).toBeGreaterThanOrEqual(2);
    } finally {
      await close();
    }
  });
});
