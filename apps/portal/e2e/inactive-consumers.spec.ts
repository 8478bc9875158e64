import { expect, test } from "@playwright/test";
import { createProduct } from "./api-setup";
import { withDb } from "./db";
import { as } from "./roles";

/*
 * Issue 31, point 5 (worker off): a consumer group that has had no members
 * for longer than the objectives' window is shown as inactive on the
 * subscription page, which says that its lag does not alert. The test stands
 * in for the worker's observation cycle and cluster scan (marked below).
 */

const run = Date.now().toString(36);

test("a stopped consumer group is shown as inactive, and the page says it does not alert", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  const { id: productId, topicName } = await createProduct(owner, "orders", {
    name: `Parcel Stops ${run}`,
    description: "Every stop a parcel makes on its way.",
    classification: "INTERNAL",
    tags: ["parcels"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.example",
    schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: `Stop${run}`, fields: [{ name: "parcelId", type: "string" }] }) },
  });
  expect((await owner.request.post(`/api/v1/products/${productId}/submit`)).status()).toBe(200);
  const reviewer = await as(browser, "reviewer");
  expect((await reviewer.request.post(`/api/v1/products/${productId}/approve`, { data: {} })).status()).toBe(200);
  await withDb((db) => db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [productId]));

  const payments = await as(browser, "paymentsOwner");
  const me = (await (await payments.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
  const domainId = me.memberships.find((m) => m.domainSlug === "payments")?.domainId;
  const accountName = `payments-stops-${run}`;
  const account = (await (await payments.request.post("/api/v1/service-accounts", { data: { domainId, name: accountName } })).json()) as { id: string };
  const sub = (await (await payments.request.post("/api/v1/subscriptions", { data: { productId, serviceAccountId: account.id, purpose: "Show customers where their parcel is." } })).json()) as { id: string };
  expect((await owner.request.post(`/api/v1/subscriptions/${sub.id}/approve`)).status()).toBe(200);
  expect((await payments.request.put(`/api/v1/subscriptions/${sub.id}/objectives`, { data: { maxLagRecords: 100 } })).ok()).toBe(true);
  const group = `${accountName}.tracker`;
  // Standing in for the worker: the grant is live; the group lags 500 records and last had a member three hours ago.
  await withDb(async (db) => {
    await db.query(`UPDATE "Subscription" SET status = 'ACTIVE' WHERE id = $1`, [sub.id]);
    await db.query(
      `INSERT INTO "ConsumerGroupObservation" ("groupId", topic, "subscriptionId", "serviceAccountId", state, members, "totalLag", "partitionDetail") VALUES ($1, $2, $3, $4, 'Empty', 0, 500, '[]')`,
      [group, topicName, sub.id, account.id],
    );
    await db.query(
      `INSERT INTO "GroupTopicUsage" ("groupId", topic, "serviceAccountId", state, members, "committedSum", "committedPartitions", "firstSeenAt", "lastActiveAt") VALUES ($1, $2, $3, 'Empty', 0, 100, 1, now() - interval '5 hours', now() - interval '3 hours')`,
      [group, topicName, account.id],
    );
  });

  await payments.goto(`/subscriptions/${sub.id}`);
  const objectives = payments.getByTestId("objectives");
  await expect
    .poll(async () => {
      await payments.mouse.wheel(0, 800);
      return objectives.count();
    }, { timeout: 30_000, intervals: [500] })
    .toBe(1);
  await expect(objectives.getByTestId("inactive-rule")).toContainText("A consumer group with no members for more than 1 hour is shown as inactive and its lag does not alert");
  const row = objectives.getByTestId("objective-row").filter({ hasText: group });
  await expect(row.getByTestId("group-inactive")).toContainText("inactive");
  await expect(row.getByTestId("group-inactive")).toContainText("does not alert until a consumer joins again");
});
