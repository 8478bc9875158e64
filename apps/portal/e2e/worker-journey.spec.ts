import { expect } from "@playwright/test";
import { Kafka, logLevel, type Consumer } from "kafkajs";
import { createProduct } from "./api-setup";
import { issuedCredentials } from "./credentials";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * The whole journey with the real worker and broker: only with
 * KAPPA_E2E_WORKER=1 (playwright.config.ts runs this file alone then, and asks
 * `npm start` to run the worker next to the embedded broker). The orders
 * owner publishes a product with tiered storage and a one-minute local window,
 * governance approves, the payments owner subscribes and is approved; a test
 * client produces with the orders producer's issued credentials and consumes
 * with the payments account's; the portal shows the lag above zero, then zero,
 * a lag alert firing against the subscriber's objective and resolving, a
 * governed replay to the earliest offset (preview, applied, lag drains), and
 * bytes moving to the remote tier.
 */

const run = Date.now().toString(36);
const productName = `Parcel Scans ${run}`;
const schema = JSON.stringify({ type: "record", name: "ParcelScanned", namespace: "example.orders", fields: [{ name: "parcelId", type: "string" }, { name: "depot", type: "string" }] });

function client(bootstrap: string, username: string, password: string): Kafka {
  return new Kafka({
    clientId: `kappa-e2e-${username}`,
    brokers: bootstrap.split(","),
    sasl: { mechanism: "scram-sha-512", username, password },
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 200 },
  });
}

/** Consumes until `count` records of this run arrived (offsets committed by kafkajs on the way). */
async function consume(consumer: Consumer, topic: string, count: number): Promise<void> {
  let seen = 0;
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`consumed ${seen} of ${count} records in 60 s`)), 60_000);
    void consumer
      .run({
        eachMessage: async () => {
          seen++;
          if (seen === count) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
}

let productId = "";
let subscriptionId = "";
let topic = "";

test.describe.serial("journey with the real worker and broker", () => {
  test.setTimeout(300_000);

  test("publish → approve: the product's steps complete on the broker and it becomes ACTIVE", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    ({ id: productId, topicName: topic } = await createProduct(owner, "orders", {
      name: productName,
      description: "Every parcel scan at a depot, for tracking pages and depot dashboards.",
      classification: "INTERNAL",
      tags: ["orders", "shipping"],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 1,
      contactEmail: "owner@orders.example",
      tieredStorage: true,
      localRetentionMs: 60_000,
      schema: { format: "AVRO", definition: schema },
    }));

    await owner.goto(`/products/${productId}`);
    await owner.getByRole("button", { name: "Submit for review" }).click();
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    await reviewer.getByTestId("review-product").filter({ hasText: productName }).getByRole("link", { name: `Review ${productName}` }).click();
    await reviewer.getByRole("button", { name: `Approve ${productName}` }).click();
    await expect(reviewer.getByText("Decision recorded.")).toBeVisible();

    await expect(owner.getByText("All steps done")).toBeVisible({ timeout: 60_000 });
    await expect(owner.getByTestId("provisioning-progress")).toHaveAttribute("aria-valuetext", "3 of 3 steps done");
    await expect(owner.getByTestId("product-status")).toHaveText("ACTIVE", { timeout: 30_000 });
    // The Live section polls only while it is on screen.
    await owner.getByTestId("tiered-storage").scrollIntoViewIfNeeded();
    await expect(owner.getByTestId("tiered-storage").getByTestId("local-bytes")).not.toHaveText("not observed yet", { timeout: 30_000 });
  });

  test("subscribe → approve: the subscription becomes ACTIVE and the consumer reveals its password once", async ({ browser }) => {
    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}/subscribe`);
    // By name: other specs of this project add payments accounts (and pick up their passwords) in the same database.
    await consumer.getByLabel("Service account").selectOption({ label: "User:payments-reconciliation (Payments)" });
    await consumer.getByLabel("Purpose").fill("Show parcel scans next to payments for disputes.");
    await consumer.getByRole("button", { name: "Request subscription" }).click();
    await consumer.waitForURL(`**/products/${productId}`);

    const owner = await as(browser, "ordersOwner");
    await owner.goto("/review");
    const request = owner.getByTestId("review-subscription").filter({ hasText: productName });
    await request.getByRole("button", { name: /^Approve access/ }).click();
    // Decided once it leaves the queue: the consumer's page shows the state at its load.
    await expect(request).toHaveCount(0);

    await consumer.reload();
    await consumer.getByTestId("subscriptions").getByRole("link").first().click();
    await consumer.waitForURL(/\/subscriptions\/[a-z0-9]+$/);
    subscriptionId = new URL(consumer.url()).pathname.split("/").pop() ?? "";
    await expect(consumer.getByTestId("subscription-status")).toHaveText("ACTIVE", { timeout: 60_000 });
  });

  test("produce with the producer's credentials, consume with the subscriber's: lag above zero, then zero; bytes move to the remote tier", async ({ browser }) => {
    const ordersOwner = await as(browser, "ordersOwner");
    const domains = (await (await ordersOwner.request.get("/api/v1/my-domains")).json()) as { slug: string; serviceAccounts: { id: string; name: string; isProducer: boolean }[] }[];
    const producerAccount = domains.find((d) => d.slug === "orders")?.serviceAccounts.find((a) => a.isProducer);
    expect(producerAccount).toBeDefined();
    const { username: producerUser, password: producerPassword } = await issuedCredentials(ordersOwner.request, producerAccount?.id ?? "");

    const consumerPage = await as(browser, "paymentsOwner");
    await consumerPage.goto(`/subscriptions/${subscriptionId}`);
    const bootstrap = (await consumerPage.getByTestId("bootstrap").textContent()) ?? "";
    await consumerPage.getByRole("button", { name: "Reveal password" }).click();
    const password = await consumerPage.getByTestId("revealed-credentials").getByLabel("Password", { exact: true }).inputValue();
    expect(password.length).toBeGreaterThan(20);

    const producer = client(bootstrap, producerUser, producerPassword).producer();
    await producer.connect();
    const batch = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ key: `parcel-${from + i}`, value: JSON.stringify({ parcelId: `parcel-${from + i}`, depot: "DEP-1" }) }));
    await producer.send({ topic, messages: batch(20, 0) });

    const groupId = "payments-reconciliation.e2e-journey";
    const reader = client(bootstrap, "payments-reconciliation", password);
    await consume(reader.consumer({ groupId }), topic, 20);

    // The subscriber's own objective: at most 10 records behind.
    const objectives = consumerPage.getByTestId("objectives");
    await objectives.getByLabel("Max lag (records)").fill("10");
    await objectives.getByRole("button", { name: "Save objectives" }).click();
    await expect(objectives.getByText("Saved.")).toBeVisible();
    await producer.send({ topic, messages: batch(15, 20) });

    const group = consumerPage.getByTestId("consumer-groups").getByRole("listitem").filter({ hasText: groupId });
    await expect(group.getByTestId("group-lag")).toHaveText("15 messages", { timeout: 60_000 });
    // 15 > 10 for longer than the fire-after time (5 s in e2e): the alert fires, on the page and in the bell.
    const alert = objectives.getByTestId("alert").filter({ hasText: groupId }).first();
    await expect(alert).toHaveAttribute("data-status", "FIRING", { timeout: 60_000 });
    await expect(alert).toContainText("lags 15 records, above the objective of 10 records");
    await expect(consumerPage.getByTestId("alerts-firing")).toHaveText("1 alert is firing on this subscription.");
    await expect(objectives.getByTestId("objective-row").filter({ hasText: groupId })).toContainText("above objective");
    await consumerPage.reload();
    await consumerPage.getByTestId("notification-bell").click();
    await expect(consumerPage.getByTestId("notification-list")).toContainText(`Lag alert on ${productName}: ${groupId}`);
    await consumerPage.keyboard.press("Escape");

    await consume(reader.consumer({ groupId }), topic, 15);
    await expect(group.getByTestId("group-lag")).toHaveText("0 messages", { timeout: 60_000 });
    // Caught up and below 80 % of the objective for the resolve-after time: resolved.
    await expect(consumerPage.getByTestId("objectives").getByTestId("alert").filter({ hasText: groupId }).first()).toHaveAttribute("data-status", "RESOLVED", { timeout: 60_000 });

    // Governed replay back to the earliest offset: previewed, applied by the worker, the lag shows what is read again and drains.
    const replay = consumerPage.getByTestId("replay");
    await replay.getByLabel("Consumer group").fill(groupId);
    await replay.getByRole("button", { name: "Preview" }).click();
    await expect(replay.getByTestId("replay-preview-records")).toHaveText("35");
    await replay.getByRole("button", { name: "Run replay" }).click();
    await expect(replay.getByTestId("replay-status")).toContainText("applied", { timeout: 60_000 });
    await expect(group.getByTestId("group-lag")).toHaveText("35 messages", { timeout: 60_000 });
    await consume(reader.consumer({ groupId }), topic, 35);
    await expect(replay.getByTestId("replay-caught-up")).toBeVisible({ timeout: 60_000 });

    // The one-minute local window (segment.ms as long): the producer keeps writing, a record a few seconds, and
    // the first record after the window closes the segment (Apache Kafka rolls a segment only on an append, never on
    // a quiet topic); the closed segment goes to object storage and leaves local disk, so the replay window shows
    // records served from object storage.
    await ordersOwner.goto(`/products/${productId}#live`);
    const servedRemotely = ordersOwner.getByTestId("replay-remote");
    let next = 35;
    await expect
      .poll(
        async () => {
          await producer.send({ topic, messages: batch(1, next++) });
          return (await servedRemotely.textContent()) ?? "";
        },
        { timeout: 180_000, intervals: [5_000] },
      )
      .toMatch(/^[1-9][\d,]* records$/);
    await producer.disconnect();
    await expect(ordersOwner.getByTestId("remote-bytes")).not.toHaveText(/^(0 B|unknown)$/);
    await expect(ordersOwner.getByTestId("storage-bar")).toBeVisible();
  });
});
