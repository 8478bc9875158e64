import { expect, type Page } from "@playwright/test";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Notifications and retirement as people see them (worker off): a request
 * rings the owner's bell; deprecation shows the sunset countdown; the owner
 * retires early and the requester hears of it; a domain's webhook shows its
 * secret once and queues a test delivery in its log.
 */

const run = Date.now().toString(36);
const productName = `Returns Feed ${run}`;
const avro = JSON.stringify({ type: "record", name: "ReturnOpened", fields: [{ name: "returnId", type: "string" }] });

async function post<T>(page: Page, path: string, data: unknown): Promise<T> {
  const origin = new URL(page.url() === "about:blank" ? (test.info().project.use.baseURL ?? "http://localhost") : page.url()).origin;
  const response = await page.request.post(path, { data, headers: { origin } });
  expect(response.ok(), `${path}: ${response.status()} ${await response.text()}`).toBe(true);
  return (await response.json()) as T;
}

test.describe.serial("notifications and retirement", () => {
  let productId = "";

  test("a subscription request rings the owner's bell; the notification leads to the request", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto("/");
    const domains = (await (await owner.request.get("/api/v1/my-domains")).json()) as { id: string; slug: string }[];
    const orders = domains.find((d) => d.slug === "orders");
    const product = await post<{ id: string }>(owner, "/api/v1/products", {
      domainId: orders?.id,
      name: productName,
      description: "Every return a customer opens.",
      classification: "INTERNAL",
      tags: ["returns"],
      freshnessSeconds: 300,
      availabilityPct: 99.5,
      partitions: 1,
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: avro },
    });
    productId = product.id;
    await post(owner, `/api/v1/products/${productId}/submit`, {});
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/");
    await post(reviewer, `/api/v1/products/${productId}/approve`, {});
    // Stand-in for the worker: provisioning finished.
    await withDb((c) => c.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [productId]));

    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto("/");
    const accounts = (await (await consumer.request.get("/api/v1/service-accounts")).json()) as { id: string; name: string }[];
    const account = accounts.find((a) => a.name === "payments-reconciliation");
    await post(consumer, "/api/v1/subscriptions", { productId, serviceAccountId: account?.id, purpose: "Refund payments when a return opens." });

    await owner.reload();
    const bell = owner.getByTestId("notification-bell");
    await expect(bell).toHaveAccessibleName(/Notifications, \d+ unread/);
    await bell.click();
    const item = owner.getByTestId("notification-list").getByRole("link", { name: new RegExp(`payments-reconciliation asks to read ${productName}`) });
    await expect(item).toBeVisible();
    await item.click();
    await owner.waitForURL(/\/subscriptions\//);

    await owner.goto("/notifications");
    await expect(owner.getByTestId("notification-centre")).toContainText(`${productName} was approved`);
    await owner.getByRole("button", { name: "Mark all read" }).click();
    await expect(owner.getByTestId("notification-bell")).toHaveAccessibleName("Notifications");
  });

  test("deprecation shows the sunset countdown; the owner retires early; the requester is told", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}`);
    await owner.getByRole("button", { name: "Deprecate…" }).click();
    await owner.getByLabel("Reason").fill("Replaced by the returns v2 feed.");
    const sunset = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    await owner.getByLabel("Sunset date").fill(sunset);
    await owner.getByRole("button", { name: "Deprecate product" }).click();
    await expect(owner.getByTestId("product-status")).toHaveText("DEPRECATED");
    await expect(owner.getByTestId("sunset-countdown")).toContainText(/Sunset in (2|3) days/);
    await expect(owner.getByTestId("retirement")).toContainText("no subscription is active");

    await owner.getByRole("button", { name: "Retire now…" }).click();
    await owner.getByLabel("Reason").fill("Nobody reads it any more.");
    await owner.getByRole("button", { name: "Retire product" }).click();
    await expect(owner.getByTestId("product-status")).toHaveText("RETIRED");
    const removed = owner.getByTestId("retirement-removed");
    await expect(removed).toContainText("No subscription was active.");
    // No worker in this run: the cluster part is still to do, and the page says so.
    await expect(removed).toContainText("Topic: pending.");

    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto("/notifications");
    await expect(consumer.getByTestId("notification-centre")).toContainText(`${productName} was retired`);
  });

  test("an owner adds a webhook: the secret is shown once; Send test queues a delivery in the log", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto("/my-domain");
    await owner.getByRole("link", { name: "Webhooks" }).first().click();
    await owner.getByLabel("URL").fill("http://127.0.0.1:9/kappa-hooks");
    await owner.getByRole("checkbox", { name: /Alert fired/ }).check();
    await owner.getByRole("button", { name: "Add endpoint" }).click();
    await expect(owner.getByTestId("webhook-secret")).toContainText("whsec_");
    const hook = owner.getByTestId("webhooks").getByRole("listitem").filter({ hasText: "127.0.0.1:9/kappa-hooks" });
    await expect(hook).toContainText("alert.fired");
    await hook.getByRole("button", { name: "Send test" }).click();
    await expect(hook.getByTestId("delivery-log")).toContainText("webhook.test");
    await owner.reload();
    await expect(owner.getByTestId("webhook-secret")).toHaveCount(0);
  });
});
