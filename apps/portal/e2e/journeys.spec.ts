import { expect } from "@playwright/test";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * The publish → review → subscribe journeys of issue 2, as each role does them
 * in the browser. They run in order on one database: journey 2 subscribes to
 * the product journey 1 published. Names are unique per run.
 */

const run = `${Date.now().toString(36)}`;
const productName = `Shipment Events ${run}`;
const avroSchema = JSON.stringify({
  type: "record",
  name: "ShipmentDispatched",
  namespace: "example.orders",
  fields: [
    { name: "shipmentId", type: "string" },
    { name: "orderId", type: "string" },
    { name: "carrier", type: "string" },
  ],
});

let productId = "";

test.describe.serial("publish, review, subscribe", () => {
  test("1: the orders owner registers and submits a product; the reviewer approves; its provisioning steps are queued", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto("/products/new");
    await owner.getByLabel("Name").fill(productName);
    await owner.getByLabel("Description").fill("Every shipment handed to a carrier, with the carrier and tracking id.");
    await owner.getByLabel("Tags").fill("orders, shipping");
    await owner.getByLabel("Partitions").fill("4");
    await owner.getByLabel("Definition").fill(avroSchema);
    await owner.getByRole("button", { name: "Register product" }).click();

    // The form stays on /products/new until the product exists, then shows it.
    await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname) && url.pathname !== "/products/new");
    productId = new URL(owner.url()).pathname.split("/").pop() ?? "";
    await expect(owner.getByRole("heading", { level: 1 })).toContainText(productName);
    await expect(owner.getByTestId("product-status")).toHaveText("DRAFT");
    await owner.getByRole("button", { name: "Submit for review" }).click();
    await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    const row = reviewer.getByTestId("review-product").filter({ hasText: productName });
    await expect(row).toBeVisible();
    // The queue only opens the change; the decision is taken below it.
    await expect(row.getByRole("button", { name: `Approve ${productName}` })).toHaveCount(0);
    await row.getByRole("link", { name: `Review ${productName}` }).click();
    await reviewer.waitForURL(`**/review/products/${productId}`);
    await expect(reviewer.getByTestId("review-configs")).toContainText("retention.ms=-1");
    await expect(reviewer.getByTestId("review-schema")).toContainText("ShipmentDispatched");
    await reviewer.getByRole("button", { name: `Approve ${productName}` }).click();
    await expect(reviewer.getByText("Decision recorded.")).toBeVisible();
    await reviewer.goto("/review");
    await expect(row).toHaveCount(0);

    await owner.reload();
    await expect(owner.getByTestId("product-status")).toHaveText("APPROVED");
    const steps = owner.getByTestId("provisioning-steps").getByRole("listitem");
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0)).toContainText("Create topic with its configs");
    await expect(steps.nth(1)).toContainText("Create producer service account");
    await expect(steps.nth(2)).toContainText("Grant producer WRITE");
    for (let i = 0; i < 3; i++) await expect(steps.nth(i)).toContainText("PENDING");
  });

  test("2: the payments owner requests a subscription; the orders owner approves; the audit log lists every step", async ({ browser }) => {
    expect(productId).not.toBe("");
    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}`);
    await consumer.getByRole("link", { name: "Request subscription" }).click();
    await consumer.waitForURL(`**/products/${productId}/subscribe`);
    const accountSelect = consumer.getByLabel("Service account");
    await expect(accountSelect).toContainText("User:payments-reconciliation");
    // Other specs add accounts to payments: choose this journey's account by its principal.
    const accountValue = await accountSelect.locator("option", { hasText: "User:payments-reconciliation" }).getAttribute("value");
    await accountSelect.selectOption(accountValue ?? "");
    await consumer.getByLabel("Purpose").fill("Reconcile carrier invoices against dispatched shipments.");
    // Temporary access: the request carries its end date.
    await consumer.getByLabel("Access ends (optional)").fill("2031-12-31");
    await consumer.getByRole("button", { name: "Request subscription" }).click();
    await consumer.waitForURL(`**/products/${productId}`);
    const mine = consumer.getByTestId("subscriptions").getByRole("listitem");
    await expect(mine).toHaveCount(1);
    await expect(mine).toContainText("REQUESTED");

    const owner = await as(browser, "ordersOwner");
    await owner.goto("/review");
    const request = owner.getByTestId("review-subscription").filter({ hasText: productName });
    await expect(request).toContainText("payments-reconciliation");
    // Owners decide subscriptions, never products: no product section they could not act on.
    await expect(owner.getByRole("heading", { name: /^Data products/ })).toHaveCount(0);
    await request.getByRole("button", { name: /^Approve access/ }).click();
    await expect(request).toHaveCount(0);

    await consumer.reload();
    await expect(consumer.getByTestId("subscriptions").getByRole("listitem")).toContainText("APPROVED");

    const detail = (await (await consumer.request.get(`/api/v1/products/${productId}`)).json()) as { subscriptions: { id: string }[] };
    const subscriptionId = detail.subscriptions[0]?.id ?? "";
    expect(subscriptionId).not.toBe("");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/audit");
    await reviewer.getByLabel("Entity type").selectOption("DataProduct");
    await reviewer.getByLabel("Entity id").fill(productId);
    await reviewer.getByRole("button", { name: "Filter" }).click();
    const productEvents = reviewer.getByTestId("audit-table").locator("tbody tr");
    await expect(productEvents).toHaveCount(3);
    await expect(productEvents.nth(0)).toContainText("product.approved");
    await expect(productEvents.nth(0)).toContainText("reviewer@governance.example");
    await expect(productEvents.nth(1)).toContainText("product.submitted");
    await expect(productEvents.nth(2)).toContainText("product.registered");
    await expect(productEvents.nth(2)).toContainText("owner@orders.example");

    await reviewer.getByLabel("Entity type").selectOption("Subscription");
    await reviewer.getByLabel("Entity id").fill(subscriptionId);
    await reviewer.getByRole("button", { name: "Filter" }).click();
    const subscriptionEvents = reviewer.getByTestId("audit-table").locator("tbody tr");
    await expect(subscriptionEvents).toHaveCount(2);
    await expect(subscriptionEvents.nth(0)).toContainText("subscription.approved");
    await expect(subscriptionEvents.nth(0)).toContainText("owner@orders.example");
    await expect(subscriptionEvents.nth(1)).toContainText("subscription.requested");
    await expect(subscriptionEvents.nth(1)).toContainText("owner@payments.example");

    // The end date shows on the subscription page; the product's owner may remove it, the subscriber may not.
    await consumer.goto(`/subscriptions/${subscriptionId}`);
    await expect(consumer.getByTestId("subscription-expiry")).toContainText("Access ends");
    await expect(consumer.getByTestId("subscription-expiry")).toContainText("2031");
    await expect(consumer.getByRole("button", { name: "Remove end date" })).toHaveCount(0);
    await owner.goto(`/subscriptions/${subscriptionId}`);
    await owner.getByRole("button", { name: "Remove end date" }).click();
    await expect(owner.getByTestId("subscription-expiry")).toContainText("No end date");
  });

  test("3: the payments owner cannot edit an orders product: no Edit action, 403 from the API, nothing changed", async ({ browser }) => {
    expect(productId).not.toBe("");
    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}`);
    await expect(consumer.getByRole("heading", { level: 1 })).toContainText(productName);
    await expect(consumer.getByRole("link", { name: "Edit" })).toHaveCount(0);

    const patch = await consumer.request.patch(`/api/v1/products/${productId}`, { data: { description: "Hijacked by another domain, should never be saved." } });
    expect(patch.status()).toBe(403);
    expect(await patch.json()).toMatchObject({ error: { code: "FORBIDDEN" } });

    await consumer.goto(`/products/${productId}/edit`);
    await expect(consumer.getByText("You cannot edit this product")).toBeVisible();

    const after = (await (await consumer.request.get(`/api/v1/products/${productId}`)).json()) as { description: string };
    expect(after.description).not.toContain("Hijacked");
  });
});

test("4: a product form with bad input shows field errors and saves nothing", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  const badName = `Broken Product ${run}`;
  await owner.goto("/products/new");
  await owner.getByLabel("Name").fill(badName);
  await owner.getByLabel("Description").fill("short");
  await owner.getByLabel("Partitions").fill("0");
  await owner.getByLabel("Definition").fill("{ not json");
  await owner.getByRole("button", { name: "Register product" }).click();

  await expect(owner.getByRole("main").getByRole("alert").first()).toContainText("nothing was saved");
  await expect(owner.getByLabel("Description")).toHaveAttribute("aria-invalid", "true");
  await expect(owner.locator("#description-error")).toContainText("at least 10 characters");
  await expect(owner.locator("#partitions-error")).toContainText("At least 1 partition");
  await expect(owner.locator("#schemaDefinition-error")).toContainText("not valid JSON");
  await expect(owner).toHaveURL(/\/products\/new$/);

  // The server refuses the same input with the same field messages, and malformed JSON with a 400.
  const me = (await (await owner.request.get("/api/v1/me")).json()) as { memberships: { domainId: string }[] };
  const direct = await owner.request.post("/api/v1/products", {
    data: { domainId: me.memberships[0]?.domainId, name: badName, description: "short", classification: "INTERNAL", freshnessSeconds: 60, availabilityPct: 99.9, partitions: 0, contactEmail: "owner@orders.example", schema: { format: "AVRO", definition: "{ not json" } },
  });
  expect(direct.status()).toBe(400);
  const body = (await direct.json()) as { error: { code: string; fields: Record<string, string[]> } };
  expect(body.error.code).toBe("VALIDATION_FAILED");
  expect(Object.keys(body.error.fields).sort()).toEqual(["description", "partitions", "schema.definition"]);
  const malformed = await owner.request.post("/api/v1/products", { headers: { "content-type": "application/json" }, data: "{ nope" });
  expect(malformed.status()).toBe(400);

  const search = (await (await owner.request.get(`/api/v1/products?q=${encodeURIComponent(badName)}`)).json()) as { total: number };
  expect(search.total).toBe(0);
});
