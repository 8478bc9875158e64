import { expect } from "@playwright/test";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Observed quality (issue 29) as a consumer sees it before subscribing: the
 * catalog list shows each measured product's score and "not measured"
 * elsewhere; the product page shows the score, the share per rule and a
 * chart with its text alternative. The worker's sampler is stood in for: the
 * test writes the QualityObservation rows it would write (the seeded "Order
 * Events" carries the rule non-negative-total).
 */

const FIVE_MINUTES = 5 * 60_000;

test.describe.serial("observed quality", () => {
  let productId = "";

  test.beforeAll(async () => {
    const bucket = new Date(Math.floor(Date.now() / FIVE_MINUTES) * FIVE_MINUTES - FIVE_MINUTES);
    productId = await withDb(async (db) => {
      const { id } = await one<{ id: string }>(db, `SELECT id FROM "DataProduct" WHERE name = 'Order Events'`);
      // Stand-in for the worker: 20 records sampled, 2 with a negative total.
      await db.query(`DELETE FROM "QualityObservation" WHERE "productId" = $1`, [id]);
      await db.query(
        `INSERT INTO "QualityObservation" ("productId", bucket, rule, passed, failed, errored) VALUES ($1, $2, '*', 18, 2, 0), ($1, $2, 'non-negative-total', 18, 2, 0)`,
        [id, bucket],
      );
      return id;
    });
  });

  test.afterAll(async () => {
    await withDb((db) => db.query(`DELETE FROM "QualityObservation" WHERE "productId" = $1`, [productId]));
  });

  test("the catalog shows the score where measured and 'not measured' elsewhere; the product page its share per rule and a chart", async ({ browser }) => {
    const page = await as(browser, "paymentsOwner");
    // Searched by name: after the other journeys the catalog's first page holds their products, not the demo's.
    const card = (name: string) => page.getByRole("listitem").filter({ has: page.getByRole("link", { name, exact: true }) });
    await page.goto(`/?q=${encodeURIComponent("Payments Captured")}`);
    await expect(card("Payments Captured").getByTestId("catalog-quality")).toHaveText("Quality not measured");
    await page.goto(`/?q=${encodeURIComponent("Order Events")}`);
    await expect(card("Order Events").getByTestId("catalog-quality")).toHaveText("Quality 90.0 % of 20 sampled records pass its rules (24 h)");

    await card("Order Events").getByRole("link", { name: "Order Events", exact: true }).click();
    const panel = page.getByTestId("quality-panel");
    await panel.scrollIntoViewIfNeeded();
    await expect(panel.getByTestId("quality-score")).toContainText("90.0 % of 20 sampled records passed every rule over the last 24 hours.");
    const rule = panel.getByTestId("quality-rule-non-negative-total");
    await expect(rule).toContainText("message.totalCents >= 0");
    await expect(rule).toContainText("90.0 %");
    await expect(rule).toContainText("2 of 20");
    // The chart's text alternative states what it draws.
    await expect(panel.getByRole("img", { name: /Share of sampled records passing every rule over the last 24 hours, 1 of 24 points measured, lowest 90\.0 %, highest 90\.0 %, newest 90\.0 %\./ })).toBeVisible();

    // A window with nothing sampled says so instead of a number.
    await withDb((db) => db.query(`UPDATE "QualityObservation" SET bucket = bucket - interval '3 hours' WHERE "productId" = $1`, [productId]));
    await page.getByRole("combobox", { name: "Window" }).selectOption("1h");
    await expect(panel.getByTestId("quality-score")).toHaveText(/^Not measured: the platform has sampled no records of this product in the last 1 hour\./);
    await page.close();
  });
});
