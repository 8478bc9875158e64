import { expect } from "@playwright/test";
import { activeOrdersProduct, activePaymentsSubscription } from "./api-setup";
import { withDb } from "./db";
import { test } from "./fixtures";

/*
 * Issue 31, point 5 (worker off): the subscribing domain's owner acknowledges
 * a firing lag alert and silences it — for 24 hours, then until a date — and
 * the page shows who silenced it until when; the product's owner sees the
 * silence but has no say over the subscriber's alert. The test stands in for
 * the worker's alert evaluator by writing the firing alert (marked below).
 */

const run = Date.now().toString(36);

test("an owner acknowledges a lag alert and silences it for 24 hours or until a date; the page shows who and until when", async ({ browser }) => {
  const { owner, id: productId } = await activeOrdersProduct(browser, { name: `Parcel Pings ${run}`, description: "Every ping a parcel's tracker sends.", recordName: `Ping${run}` });
  const { payments, subscriptionId, group } = await activePaymentsSubscription(browser, owner, productId, `payments-pings-${run}`);
  // Standing in for the worker: its alert evaluator fired a lag alert on the group.
  await withDb(async (db) => {
    await db.query(
      `INSERT INTO "Alert" (id, kind, "productId", "subscriptionId", "groupId", threshold, value, "peakValue", status, message) VALUES ($1, 'LAG_RECORDS', $2, $3, $4, 100, 500, 500, 'FIRING', $5)`,
      [`e2e-alert-${run}`, productId, subscriptionId, group, `Parcel Pings ${run}: consumer group ${group} lags 500 records, above the objective of 100 records.`],
    );
  });

  await payments.goto(`/subscriptions/${subscriptionId}`);
  const alert = payments.getByTestId("alert").filter({ hasText: group });
  await expect
    .poll(async () => {
      await payments.mouse.wheel(0, 800);
      return alert.count();
    }, { timeout: 30_000, intervals: [500] })
    .toBe(1);
  await expect(alert).toContainText("firing");
  await alert.getByRole("button", { name: "Acknowledge" }).click();
  await expect(alert.getByTestId("alert-acknowledged")).toContainText("Acknowledged by Paul Payments");
  await expect(alert.getByRole("button", { name: "Acknowledge" })).toHaveCount(0);

  await alert.getByLabel("Silence for").selectOption("24h");
  await alert.getByLabel("Reason (optional)").fill("Backfill running until tomorrow.");
  const before = Date.now();
  await alert.getByRole("button", { name: "Silence", exact: true }).click();
  await expect(alert.getByTestId("alert-silence")).toContainText("Silenced by Paul Payments until");
  await expect(alert.getByTestId("alert-silence")).toContainText("if it still fires when the silence ends, it notifies again. Reason: Backfill running until tomorrow.");
  await expect(alert).toContainText("silenced");
  const shown = (await (await payments.request.get(`/api/v1/subscriptions/${subscriptionId}/objectives`)).json()) as { alerts: { silence: { until: string } | null }[] };
  const until = new Date(shown.alerts[0]?.silence?.until ?? 0).getTime();
  expect(until - before).toBeGreaterThan(24 * 3600_000 - 120_000);
  expect(until - before).toBeLessThan(24 * 3600_000 + 120_000);

  // The product's owner sees the silence, but the subscriber's alert is not theirs to silence.
  await owner.goto(`/subscriptions/${subscriptionId}`);
  const seen = owner.getByTestId("alert").filter({ hasText: group });
  await expect
    .poll(async () => {
      await owner.mouse.wheel(0, 800);
      return seen.count();
    }, { timeout: 30_000, intervals: [500] })
    .toBe(1);
  await expect(seen.getByTestId("alert-silence")).toContainText("Silenced by Paul Payments until");
  await expect(seen.getByTestId("alert-actions")).toHaveCount(0);
  expect((await owner.request.delete(`/api/v1/alerts/e2e-alert-${run}/silence`)).status()).toBe(403);

  // Ended early, then silenced until a date three days ahead (the page's own date field, in the browser's time zone).
  await alert.getByRole("button", { name: "End silence" }).click();
  await expect(alert.getByTestId("alert-silence")).toHaveCount(0);
  await alert.getByLabel("Silence for").selectOption("until");
  const ahead = await payments.evaluate(() => {
    const d = new Date(Date.now() + 3 * 24 * 3600_000);
    d.setSeconds(0, 0);
    const pad = (n: number) => String(n).padStart(2, "0");
    return { local: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`, iso: d.toISOString() };
  });
  await alert.getByLabel("Silence until").fill(ahead.local);
  await alert.getByRole("button", { name: "Silence", exact: true }).click();
  await expect(alert.getByTestId("alert-silence")).toContainText("Silenced by Paul Payments until");
  const again = (await (await payments.request.get(`/api/v1/subscriptions/${subscriptionId}/objectives`)).json()) as { alerts: { silence: { until: string } | null }[] };
  expect(again.alerts[0]?.silence?.until).toBe(ahead.iso);
  const audit = await withDb(async (db) => (await db.query<{ action: string }>(`SELECT action FROM "AuditEvent" WHERE "entityType" = 'Alert' AND "entityId" = $1 ORDER BY id`, [`e2e-alert-${run}`])).rows.map((r) => r.action));
  expect(audit).toEqual(["alert.acknowledged", "alert.silenced", "alert.unsilenced", "alert.silenced"]);
});
