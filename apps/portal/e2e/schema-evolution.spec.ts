import { expect } from "@playwright/test";
import { createProduct } from "./api-setup";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * The Evolve journey: an orders product read by the payments domain gets a
 * compatible new schema version that the reviewer approves after seeing the
 * diff and who it breaks; then a breaking change is refused with the exact
 * incompatibility and turned into major version v2; the reviewer sees v2's
 * change from v1 and its readers; the subscriber sees the deprecation and
 * requests the same access on v2 in one click.
 */

const run = Date.now().toString(36);
const productName = `Order Totals ${run}`;
const record = (fields: unknown[]) => JSON.stringify({ type: "record", name: `OrderTotal${run}`, namespace: "example.orders", fields });
const orderId = { name: "orderId", type: "string" };
const amountCents = { name: "amountCents", type: "long" };
const channel = { name: "channel", type: "string" };
const DOWNGRADE = `$merge([$, {"amountCents": $number(amountCents)}])`;

let productId = "";
let subscriptionId = "";
let slug = "";

test.describe.serial("evolve a product's schema", () => {
  test("setup: an ACTIVE orders product with an active payments subscription", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    ({ id: productId } = await createProduct(owner, "orders", {
      name: productName,
      description: "Order totals as they are settled, one record per order.",
      classification: "INTERNAL",
      tags: ["orders"],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 1,
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: record([orderId, amountCents, channel]) },
    }));
    slug = `orders.order-totals-${run}`;
    expect((await owner.request.post(`/api/v1/products/${productId}/submit`)).status()).toBe(200);
    const reviewer = await as(browser, "reviewer");
    expect((await reviewer.request.post(`/api/v1/products/${productId}/approve`, { data: {} })).status()).toBe(200);

    const payments = await as(browser, "paymentsOwner");
    const accounts = (await (await payments.request.get("/api/v1/service-accounts")).json()) as { id: string; name: string }[];
    const account = accounts.find((a) => a.name === "payments-reconciliation");
    const requested = await payments.request.post("/api/v1/subscriptions", {
      data: { productId, serviceAccountId: account?.id, purpose: "Reconcile settled totals against captured payments." },
    });
    expect(requested.status()).toBe(201);
    ({ id: subscriptionId } = (await requested.json()) as { id: string });
    expect((await owner.request.post(`/api/v1/subscriptions/${subscriptionId}/approve`)).status()).toBe(200);
    // Standing in for the worker: the topic exists and the grant is on the broker.
    await withDb(async (db) => {
      await db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [productId]);
      await db.query(`UPDATE "Subscription" SET status = 'ACTIVE' WHERE id = $1`, [subscriptionId]);
    });
  });

  test("a compatible version is checked as the owner types; the reviewer sees the diff and the subscriber it would break, and approves with a comment", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}`);
    await owner.getByRole("link", { name: "Versions · propose a new one" }).click();
    await owner.waitForURL(`**/products/${productId}/schema`);
    await owner.getByLabel("New Avro definition").fill(record([orderId, amountCents]));
    const check = owner.getByTestId("schema-check");
    await expect(check.getByTestId("compatibility-verdict")).toContainText("Compatible under BACKWARD");
    await expect(check.getByTestId("stricter-modes")).toContainText("FULL");
    await expect(check.locator('[data-path="channel"]')).toContainText("removed");
    await owner.getByRole("button", { name: "Submit v2 for review" }).click();
    await expect(owner.getByTestId("pending-proposal")).toContainText("Version 2 is waiting for review");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    const row = reviewer.getByTestId("review-schema-version").filter({ hasText: productName });
    await expect(row.getByRole("button", { name: /Approve/ })).toHaveCount(0);
    await row.getByRole("link", { name: `Review v2 of ${productName}` }).click();
    await expect(reviewer.getByTestId("compatibility-verdict")).toContainText("Compatible under BACKWARD");
    await expect(reviewer.getByTestId("stricter-modes")).toContainText("not compatible");
    await expect(reviewer.getByTestId("field-diff").locator('[data-path="channel"]')).toContainText("removed");
    const readers = reviewer.getByTestId("affected-readers").getByRole("listitem");
    await expect(readers).toHaveCount(1);
    await expect(readers).toContainText("User:payments-reconciliation");
    await expect(readers).toContainText("would break");
    await expect(reviewer.getByTestId("forward-issues")).toContainText(
      "field `channel` removed without a default: readers of v1 cannot read data written with v2 under FORWARD",
    );
    // A rejection needs a reason; an approval takes an optional comment.
    await reviewer.getByRole("button", { name: `Reject v2 of ${productName}` }).click();
    await expect(reviewer.getByText("A rejection needs a reason of at least 5 characters.")).toBeVisible();
    await reviewer.getByLabel("Comment").fill("Payments no longer reads the channel.");
    await reviewer.getByRole("button", { name: `Approve v2 of ${productName}` }).click();
    await expect(reviewer.getByTestId("decision")).toContainText("Approved");
    await expect(reviewer.getByTestId("decision")).toContainText("Payments no longer reads the channel.");

    await owner.reload();
    const versions = owner.getByTestId("schema-versions");
    await expect(versions.locator('[data-version="2"]')).toContainText("APPROVED");
    await expect(versions.locator('[data-version="2"]')).toContainText("Rita Reviewer");
  });

  test("a breaking change is refused with the exact message and published as v2", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}/schema`);
    await owner.getByLabel("New Avro definition").fill(record([orderId, { name: "amountCents", type: "string" }]));
    const check = owner.getByTestId("schema-check");
    await expect(check.getByTestId("compatibility-verdict")).toContainText("Not compatible under BACKWARD");
    await expect(check.getByTestId("issue-message")).toHaveText(
      "field `amountCents` changed type from long to string: readers of v3 cannot read data written with v2 under BACKWARD",
    );
    await expect(owner.getByRole("button", { name: "Submit v3 for review" })).toBeDisabled();

    const offer = owner.getByTestId("major-version-offer");
    await expect(offer).toContainText(`${slug}.v2`);
    const sunset = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
    await offer.getByLabel("Sunset date of the current version").fill(sunset);
    await offer.getByLabel("Why (shown to subscribers)").fill("Amounts become decimal strings");
    // A migration rule that does not compile is refused on its field; nothing is published.
    const downgrade = offer.getByLabel("Migration rule to v1 (JSONata, optional)");
    await downgrade.fill(`$merge([$, {"amountCents": $number(amountCents)`);
    await offer.getByRole("button", { name: "Publish v2" }).click();
    await expect(offer.locator("#major-downgrade-error")).toContainText("Does not compile");
    await expect(downgrade).toHaveAttribute("aria-invalid", "true");
    await downgrade.fill(DOWNGRADE);
    await offer.getByRole("button", { name: "Publish v2" }).click();
    await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname) && !url.pathname.endsWith(productId));
    await expect(owner.getByText(`${slug}.v2`, { exact: true })).toBeVisible();
    await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");
    await expect(owner.getByTestId("predecessor")).toContainText(`${slug}.v1`);

    // v1 stays live and untouched until governance approves v2.
    await owner.goto(`/products/${productId}`);
    await expect(owner.getByTestId("product-status")).toHaveText("ACTIVE");
  });

  test("the reviewer sees v2's change from v1 and who reads v1, and approves it", async ({ browser }) => {
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    const row = reviewer.getByTestId("review-product").filter({ hasText: `${slug}.v2` });
    await expect(row).toContainText("new major v2");
    await row.getByRole("link", { name: `Review ${productName}` }).click();
    await expect(reviewer.getByTestId("field-diff").locator('[data-path="amountCents"]')).toContainText("changed");
    await expect(reviewer.getByTestId("field-diff").locator('[data-path="amountCents"]')).toContainText("string");
    await expect(reviewer.getByTestId("predecessor-readers")).toContainText("User:payments-reconciliation");
    await expect(reviewer.getByTestId("review-migration-downgrade")).toHaveText(DOWNGRADE);
    await reviewer.getByRole("button", { name: `Approve ${productName}` }).click();
    await expect(reviewer.getByText("Decision recorded.")).toBeVisible();
    // Only now is v1 deprecated, with the sunset its owner chose.
    await reviewer.goto(`/products/${productId}`);
    await expect(reviewer.getByTestId("product-status")).toHaveText("DEPRECATED");
  });

  test("the subscriber of v1 sees the deprecation and requests the same access on v2 in one click", async ({ browser }) => {
    const payments = await as(browser, "paymentsOwner");
    await payments.goto("/my-domain");
    await expect(payments.getByTestId("successor-notice").filter({ hasText: `${slug}.v1` })).toContainText("is deprecated");

    await payments.goto(`/subscriptions/${subscriptionId}`);
    const notice = payments.getByTestId("successor-notice");
    await expect(notice).toContainText("is deprecated, sunset");
    await expect(notice).toContainText(`${slug}.v2`);
    await notice.getByRole("button", { name: "Request the same access on v2 for payments-reconciliation" }).click();
    await expect(notice.getByTestId("carried-over")).toContainText("REQUESTED");
    await notice.getByRole("link", { name: "Open that subscription" }).click();
    await expect(payments.getByText("Reconcile settled totals against captured payments.")).toBeVisible();
    await expect(payments.getByText(`${slug}.v2`).first()).toBeVisible();
  });

  test("the compatibility mode changes only through review, with a reason", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}/schema`);
    const card = owner.getByTestId("mode-change");
    await expect(card).toContainText("checked under BACKWARD");
    await card.getByLabel("Change the mode to").selectOption("FULL_TRANSITIVE");
    await card.getByLabel("Reason").fill("Consumers stay on old versions for months.");
    await card.getByRole("button", { name: "Request the change" }).click();
    await expect(card).toContainText("A change to FULL_TRANSITIVE waits for governance review");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    const change = reviewer.getByTestId("review-change").filter({ hasText: productName });
    await expect(change).toContainText("compatibility mode BACKWARD → FULL_TRANSITIVE");
    await expect(change).toContainText("Consumers stay on old versions for months.");
    await change.getByRole("button", { name: `Approve change to ${productName}` }).click();
    await expect(change).toHaveCount(0);

    await owner.reload();
    await expect(owner.getByTestId("mode-change")).toContainText("checked under FULL_TRANSITIVE");
  });
});
