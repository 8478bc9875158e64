import { expect } from "@playwright/test";
import { activeOrdersProduct, activePaymentsSubscription } from "./api-setup";
import { withDb } from "./db";
import { test } from "./fixtures";

/*
 * Issue 31, point 5 (worker off): a consumer group that has had no members
 * for longer than the objectives' window is shown as inactive on the
 * subscription page, which says that its lag does not alert. The test stands
 * in for the worker's observation cycle and cluster scan (marked below).
 */

const run = Date.now().toString(36);

test("a stopped consumer group is shown as inactive, and the page says it does not alert", async ({ browser }) => {
  const { owner, id: productId, topicName } = await activeOrdersProduct(browser, { name: `Parcel Stops ${run}`, description: "Every stop a parcel makes on its way.", recordName: `Stop${run}` });
  const { payments, accountId, subscriptionId, group } = await activePaymentsSubscription(browser, owner, productId, `payments-stops-${run}`);
  // Standing in for the worker: the group lags 500 records and last had a member three hours ago.
  await withDb(async (db) => {
    await db.query(
      `INSERT INTO "ConsumerGroupObservation" ("groupId", topic, "subscriptionId", "serviceAccountId", state, members, "totalLag", "partitionDetail") VALUES ($1, $2, $3, $4, 'Empty', 0, 500, '[]')`,
      [group, topicName, subscriptionId, accountId],
    );
    await db.query(
      `INSERT INTO "GroupTopicUsage" ("groupId", topic, "serviceAccountId", state, members, "committedSum", "committedPartitions", "firstSeenAt", "lastActiveAt") VALUES ($1, $2, $3, 'Empty', 0, 100, 1, now() - interval '5 hours', now() - interval '3 hours')`,
      [group, topicName, accountId],
    );
  });

  await payments.goto(`/subscriptions/${subscriptionId}`);
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
