import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveProduct, loadActor, qualityScores, readProductQuality, registerProduct, setQualityRules, submitForReview, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 29, observed quality: the score the catalog computes from the
 * worker's counts (QualityObservation rows, written here as the worker
 * would): per rule and overall over a window, a series, "not measured" where
 * nothing was counted, and seen by whoever may see the product.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const schema = JSON.stringify({ type: "record", name: "Order", fields: [{ name: "orderId", type: "string" }, { name: "totalCents", type: "long" }] });
const HOUR = 3_600_000;
const now = Date.parse("2026-12-09T12:02:00Z");

async function product(name: string, publish: boolean) {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, schema: { format: "AVRO", definition: schema } }));
  await setQualityRules(db, ctx.as.ordersOwner, p.id, {
    rules: [
      { name: "non-negative-total", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "NONE" },
      { name: "has-order-id", kind: "CEL", expression: "message.orderId != ''", mode: "WRITE", onFailure: "NONE" },
    ],
    reason: "Totals are never negative.",
  });
  if (publish) {
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
  }
  return p;
}

const row = (productId: string, at: number, rule: string, passed: number, failed: number, errored = 0) => ({ productId, bucket: new Date(at), rule, passed, failed, errored });

describe("observed quality", () => {
  it("is the share of records passing, per rule and overall, over the window, with a series; not measured without counts", async () => {
    const measured = await product("Scored Orders", true);
    const unmeasured = await product("Unscored Orders", true);
    await db.qualityObservation.createMany({
      data: [
        // Within the last hour.
        row(measured.id, now - 5 * 60_000, "*", 6, 3, 1),
        row(measured.id, now - 5 * 60_000, "non-negative-total", 6, 3),
        row(measured.id, now - 5 * 60_000, "has-order-id", 9, 0),
        // Two hours ago: in 24h, not in 1h.
        row(measured.id, now - 2 * HOUR, "*", 10, 0),
        row(measured.id, now - 2 * HOUR, "non-negative-total", 10, 0),
        row(measured.id, now - 2 * HOUR, "has-order-id", 10, 0),
        // Three days ago: only in 7d.
        row(measured.id, now - 72 * HOUR, "*", 0, 20),
        // A rule that is no longer in the contract is not listed.
        row(measured.id, now - 5 * 60_000, "old-rule", 0, 9),
      ],
    });
    const consumer = await loadActor(db, ctx.as.paymentsOwner.userId);

    const hour = await readProductQuality(db, consumer, measured.id, { window: "1h" }, now);
    expect(hour).toMatchObject({ measured: true, window: "1h", overall: { records: 10, passed: 6, failed: 3, errored: 1, share: 0.6 } });
    expect(hour.rules.map((r) => [r.name, r.records, r.failed, r.share])).toEqual([
      ["non-negative-total", 9, 3, 6 / 9],
      ["has-order-id", 9, 0, 1],
    ]);
    // Five-minute points: the one with counts, the others empty (no made-up share).
    expect(hour.series).toHaveLength(12);
    expect(hour.series.filter((p) => p.share !== null)).toEqual([{ at: "2026-12-09T11:55:00.000Z", records: 10, share: 0.6 }]);

    const day = await readProductQuality(db, consumer, measured.id, {}, now);
    expect(day).toMatchObject({ window: "24h", overall: { records: 20, passed: 16, share: 0.8 } });
    expect(day.series).toHaveLength(24);
    expect((await readProductQuality(db, consumer, measured.id, { window: "7d" }, now)).overall).toMatchObject({ records: 40, passed: 16, share: 0.4 });

    const none = await readProductQuality(db, consumer, unmeasured.id, {}, now);
    expect(none).toMatchObject({ measured: false, overall: { records: 0, share: null }, lastSampledAt: null });
    expect(none.rules.every((r) => r.share === null)).toBe(true);

    // The list: a score only where measured in the last 24 hours.
    const scores = await qualityScores(db, [measured.id, unmeasured.id], now);
    expect([...scores]).toEqual([[measured.id, { share: 0.8, records: 20 }]]);

    await expect(readProductQuality(db, consumer, measured.id, { window: "2h" }, now)).rejects.toThrow("Some fields need attention");
  });

  it("is hidden with the product: another domain's draft is not found", async () => {
    const draft = await product("Draft Orders", false);
    const consumer = await loadActor(db, ctx.as.paymentsOwner.userId);
    await expect(readProductQuality(db, consumer, draft.id, {}, now)).rejects.toThrow(/does not exist/);
    const owner = await loadActor(db, ctx.as.ordersOwner.userId);
    expect((await readProductQuality(db, owner, draft.id, {}, now)).measured).toBe(false);
  });
});
