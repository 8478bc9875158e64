import { randomBytes } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { createProduct } from "./api-setup";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Client quotas on the pages (issue 33): the product page shows its producer
 * account's quota in force and how close the account runs to it, its owner
 * asks for a larger class that governance grants from the review queue; a
 * subscriber asks for a class on the subscribe form and the subscription page
 * shows the account's quota and read rate. The test stands in for the worker
 * (no worker in these journeys): it writes the per-minute observations the
 * worker would. A request's x-request-id follows into the catalog's audit
 * event and provisioning task.
 */

const MiB = 1024 * 1024;
const unique = () => randomBytes(3).toString("hex");
const avro = JSON.stringify({ type: "record", name: "QuotaEvent", fields: [{ name: "id", type: "string" }] });

async function ok(response: { status(): number; text(): Promise<string> }, what: string) {
  expect(response.status(), `${what}: ${await response.text()}`).toBeLessThan(300);
}

/** The card on a page, scrolled to (its chart loads near the viewport). */
async function quotaCard(page: Page) {
  const card = page.getByTestId("quota-card");
  await card.scrollIntoViewIfNeeded();
  return card;
}

test("the product and subscription pages show the quota in force and how close the account runs to it; a larger class is granted by governance", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  const reviewer = await as(browser, "reviewer");
  const payer = await as(browser, "paymentsOwner");
  const name = `Quota Events ${unique()}`;
  const { id: productId, topicName } = await createProduct(owner, "orders", {
    name,
    description: "Events for the quota journey.",
    classification: "INTERNAL",
    tags: [],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.example",
    schema: { format: "AVRO", definition: avro },
  });
  await ok(await owner.request.post(`/api/v1/products/${productId}/submit`), "submit");
  await ok(await reviewer.request.post(`/api/v1/products/${productId}/approve`, { data: {} }), "approve");

  // Standing in for the worker: 1280 bytes per record on the broker, and the last three minutes at 1024, 1536 and 2048 records/s.
  await withDb(async (c) => {
    await c.query(
      `INSERT INTO "TopicObservation" (topic, "productId", partitions, "endOffset", "earliestOffset", "localBytes", "messagesPerSecond", "observedAt") VALUES ($1, $2, 1, 1000, 0, 1280000, 2048, now())`,
      [topicName, productId],
    );
    await c.query(
      `INSERT INTO "TopicObservationSample" (topic, bucket, "endOffset", "earliestOffset", "localBytes", "messagesPerSecond")
       SELECT $1, date_trunc('minute', now()) - make_interval(mins => m), 1000, 0, 1280000, 2048 - m * 512 FROM generate_series(0, 2) AS m`,
      [topicName],
    );
  });
  // The producer account writes every orders topic: its quota in force (the default here, unless an earlier journey chose more).
  const api = (await (await owner.request.get(`/api/v1/products/${productId}/quota`)).json()) as { inForce: { class: string; producerByteRate: number } };
  const limit = api.inForce.producerByteRate;
  const pct = (bytes: number) => `${Math.round((bytes / limit) * 1000) / 10} %`;

  await owner.goto(`/products/${productId}`);
  let card = await quotaCard(owner);
  await expect(card.getByTestId("quota-class")).toHaveText(api.inForce.class);
  await expect(card.getByTestId("quota-producer-rate")).toHaveText(`${(limit / MiB).toFixed(1)} MiB/s`);
  await expect(card.getByTestId("quota-latest")).toHaveText("2.5 MiB/s");
  await expect(card.getByTestId("quota-peak")).toHaveText("2.5 MiB/s");
  await expect(card.getByTestId("quota-percent")).toHaveText(pct(2.5 * MiB));
  await expect(owner.getByTestId("quota-chart")).toBeVisible();
  await expect(owner.getByRole("img", { name: /Bytes per second per minute over the last 3 hours, peak 2\.5 MiB\/s against a quota of/ })).toBeVisible();

  // The owner asks for bulk: it waits for governance, with the reason.
  await card.getByLabel("Quota class").selectOption("bulk");
  await card.getByRole("button", { name: "Ask for this class" }).click();
  await expect(card.getByText(/larger than the default/)).toBeVisible();
  await card.getByLabel("Why this class is needed").fill("Nightly backfill of every order.");
  await card.getByRole("button", { name: "Ask for this class" }).click();
  await expect(card.getByTestId("quota-requested")).toContainText("bulk waits for governance: “Nightly backfill of every order.”");

  await reviewer.goto("/review");
  const row = reviewer.getByTestId("review-quota-class").filter({ hasText: name });
  await expect(row).toContainText("Nightly backfill of every order.");
  await expect(row).toContainText("asks for bulk");
  await row.getByRole("button", { name: `Grant quota class bulk to ${name}` }).click();
  await expect(row).toHaveCount(0);

  await owner.reload();
  card = await quotaCard(owner);
  await expect(card.getByTestId("quota-class")).toHaveText("bulk");
  await expect(card.getByTestId("quota-producer-rate")).toHaveText("50.0 MiB/s");
  await expect(card.getByTestId("quota-percent")).toHaveText("5 %");
  await expect(card.getByTestId("quota-requested")).toHaveCount(0);

  // A subscriber asks for bulk on the subscribe form; the owners approve the access, the class waits for governance.
  const accountName = `payments-zz-quota-${unique()}`;
  const paymentsId = ((await (await payer.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] }).memberships.find((m) => m.domainSlug === "payments")!.domainId;
  const createdAccount = await payer.request.post("/api/v1/service-accounts", { data: { domainId: paymentsId, name: accountName } });
  await ok(createdAccount, "account");
  const accountId = ((await createdAccount.json()) as { id: string }).id;
  await payer.goto(`/products/${productId}/subscribe`);
  await payer.getByLabel("Service account").selectOption(accountId);
  await payer.getByLabel("Purpose").fill("Reconciliation of payments against orders.");
  await payer.getByLabel("Quota class").selectOption("bulk");
  await payer.getByLabel("Why the account needs this class").fill("Month-end replay of every order.");
  await payer.getByRole("button", { name: "Request subscription" }).click();
  await expect(payer).toHaveURL(new RegExp(`/products/${productId}$`));
  const sub = await withDb((c) => one<{ id: string; quotaClassRequested: string }>(c, `SELECT s.id, s."quotaClassRequested" FROM "Subscription" s JOIN "ServiceAccount" a ON a.id = s."serviceAccountId" WHERE a.name = $1`, [accountName]));
  expect(sub.quotaClassRequested).toBe("bulk");

  // The owner's approval carries its x-request-id into the audit event and the grant task the worker will run.
  const requestId = `e2e-quota-${unique()}`;
  const approved = await owner.request.post(`/api/v1/subscriptions/${sub.id}/approve`, { headers: { "x-request-id": requestId } });
  await ok(approved, "approve subscription");
  expect(approved.headers()["x-request-id"]).toBe(requestId);
  await withDb(async (c) => {
    expect((await one<{ requestId: string }>(c, `SELECT "requestId" FROM "ProvisioningTask" WHERE "entityId" = $1 AND kind = 'GRANT_SUBSCRIPTION_ACL'`, [sub.id])).requestId).toBe(requestId);
    expect((await one<{ requestId: string }>(c, `SELECT data->>'requestId' AS "requestId" FROM "AuditEvent" WHERE "entityId" = $1 AND action = 'subscription.approved'`, [sub.id])).requestId).toBe(requestId);
  });
  // A malformed id is not taken: the request gets a fresh one.
  const odd = await owner.request.get("/api/v1/me", { headers: { "x-request-id": "not an id; DROP" } });
  expect(odd.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);

  // Standing in for the worker: the account's group committed 2048 records/s over the last two minutes.
  await withDb((c) =>
    c.query(
      `INSERT INTO "ConsumerGroupObservationSample" ("groupId", topic, bucket, "totalLag", "committedOffset", "subscriptionId")
       SELECT $1, $2, date_trunc('minute', now()) - make_interval(mins => m), 0, (2 - m) * 122880, $3 FROM generate_series(0, 2) AS m`,
      [`${accountName}.reconciliation`, topicName, sub.id],
    ),
  );
  await payer.goto(`/subscriptions/${sub.id}`);
  card = await quotaCard(payer);
  await expect(card.getByTestId("quota-class")).toHaveText("standard");
  await expect(card.getByTestId("quota-consumer-rate")).toHaveText("10.0 MiB/s");
  await expect(card.getByTestId("quota-requested")).toContainText("bulk waits for governance: “Month-end replay of every order.”");
  await expect(card.getByTestId("quota-latest")).toHaveText("2.5 MiB/s");
  await expect(card.getByTestId("quota-percent")).toHaveText("25 %");
  await expect(card).toContainText("of its consumer_byte_rate");
  await expect(payer.getByTestId("quota-chart")).toBeVisible();
});
