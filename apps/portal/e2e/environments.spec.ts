import { expect, type APIRequestContext } from "@playwright/test";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Issue 13, environments and promotion: an admin registers a cluster as the
 * `prod` environment (the password never shown again, the change audited), an
 * owner promotes an ACTIVE product to it, prod's stricter bound refuses a
 * product that breaks it, a reviewer approves the promotion (not its
 * requester), and the product page shows both environments side by side.
 * A consumer then subscribes in prod (offered only where the product is live
 * there), the owner approves, and the subscription names its environment.
 * The journeys run without a worker: provisioning on the prod cluster is the
 * worker's, tested against two real brokers in
 * packages/worker/test/environments.integration.test.ts.
 */
const run = Date.now().toString(36);
const environment = `prod${run.replace(/[^a-z0-9]/g, "").slice(-8)}`;
const PASSWORD = `prod-admin-secret-${run}`;
/** Set by the promotion test for the subscription test after it. */
let promotedId = "";
let devOnlyId = "";

/** A fresh ACTIVE orders product with `partitions` partitions (the test stands in for the worker's activation). */
async function activeProduct(owner: APIRequestContext, reviewer: APIRequestContext, name: string, partitions: number): Promise<string> {
  const domainId = await withDb(async (c) => (await c.query<{ id: string }>(`SELECT id FROM "Domain" WHERE slug = 'orders'`)).rows[0]!.id);
  const registered = await owner.post("/api/v1/products", {
    data: {
      domainId,
      name,
      description: "A product promoted by the environments journey.",
      classification: "INTERNAL",
      tags: [],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions,
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "Promoted", fields: [{ name: "id", type: "string" }] }) },
    },
  });
  expect(registered.status()).toBe(201);
  const { id } = (await registered.json()) as { id: string };
  expect((await owner.post(`/api/v1/products/${id}/submit`)).status()).toBe(200);
  expect((await reviewer.post(`/api/v1/products/${id}/approve`)).status()).toBe(200);
  // Standing in for the worker, which activates a product once provisioned.
  await withDb((c) => c.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [id]));
  return id;
}

test.describe.serial("environments and promotion", () => {
  test.afterAll(async () => {
    // Later specs see the single-environment product page again.
    await withDb((c) => c.query(`DELETE FROM "Cluster" WHERE environment = $1`, [environment]));
  });

  test("an admin registers a cluster as an environment; the password is stored sealed and never shown", async ({ browser }) => {
    const admin = await as(browser, "admin");
    await admin.goto("/admin/clusters");
    await expect(admin.getByRole("link", { name: "Clusters" })).toHaveAttribute("aria-current", "page");
    const form = admin.getByRole("form", { name: "Register a cluster" });
    await form.getByLabel("Environment name").fill(environment);
    await form.getByLabel("Bootstrap servers").fill("kafka-1.prod.example:9093, kafka-2.prod.example:9093");
    await form.getByLabel("Security protocol").selectOption("SASL_SSL");
    await form.getByLabel("SASL mechanism").selectOption("scram-sha-512");
    await form.getByLabel("Admin user").fill("kappa-admin");
    await form.getByLabel("Admin password").fill(PASSWORD);
    await form.getByLabel("Maximum partitions (optional)").fill("4");
    // A bootstrap entry without a port is refused, naming the field.
    await form.getByLabel("Bootstrap servers").fill("kafka-1.prod.example");
    await form.getByRole("button", { name: "Register cluster" }).click();
    await expect(form.getByText("Every bootstrap entry must be host:port")).toBeVisible();
    await form.getByLabel("Bootstrap servers").fill("kafka-1.prod.example:9093,kafka-2.prod.example:9093");
    await form.getByLabel("Admin password").fill(PASSWORD);
    await form.getByRole("button", { name: "Register cluster" }).click();

    const row = admin.getByTestId("cluster-row").filter({ hasText: environment });
    await expect(row).toContainText("kafka-1.prod.example:9093,kafka-2.prod.example:9093");
    await expect(row).toContainText("SASL_SSL · scram-sha-512");
    await expect(row).toContainText("kappa-admin · password stored (encrypted)");
    await expect(row).toContainText("≤ 4 partitions");
    await expect(form.getByLabel("Admin password")).toHaveValue("");
    await expect(admin.getByText(PASSWORD)).toHaveCount(0);

    const stored = await withDb(async (c) => (await c.query<{ sealed: string }>(`SELECT "adminPasswordSealed" AS sealed FROM "Cluster" WHERE environment = $1`, [environment])).rows[0]!.sealed);
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain(PASSWORD);
    const listed = await admin.request.get("/api/v1/clusters");
    expect(await listed.text()).not.toContain(PASSWORD);

    // Audited, without the password.
    await admin.goto("/audit");
    await admin.getByLabel("Action").fill("cluster.registered");
    const entry = admin.getByRole("row").filter({ hasText: environment });
    await expect(entry.first()).toContainText("admin@kappa.example");
    await expect(admin.getByText(PASSWORD)).toHaveCount(0);

    // Editing: the name stays, an empty password field keeps the stored password, a bad bootstrap is refused at its field.
    await admin.goto("/admin/clusters");
    await admin.getByRole("button", { name: `Edit ${environment}` }).click();
    const edit = admin.getByRole("form", { name: `Edit ${environment}` });
    await expect(edit.getByLabel("New admin password")).toHaveValue("");
    await expect(edit.getByLabel("Maximum partitions (optional)")).toHaveValue("4");
    await edit.getByLabel("Bootstrap servers").fill("kafka-1.prod.example");
    await edit.getByRole("button", { name: `Save ${environment}` }).click();
    await expect(edit.getByText("Every bootstrap entry must be host:port")).toBeVisible();
    await edit.getByLabel("Bootstrap servers").fill("kafka-1.prod.example:9093,kafka-2.prod.example:9093");
    await edit.getByLabel("Admin user").fill("kappa-admin-2");
    await edit.getByRole("button", { name: `Save ${environment}` }).click();
    await expect(edit).toHaveCount(0);
    await expect(row).toContainText("kappa-admin-2 · password stored (encrypted)");
    await expect(row).toContainText("≤ 4 partitions");
    const kept = await withDb(async (c) => (await c.query<{ sealed: string }>(`SELECT "adminPasswordSealed" AS sealed FROM "Cluster" WHERE environment = $1`, [environment])).rows[0]!.sealed);
    expect(kept).toBe(stored);
    const updated = await withDb(async (c) => (await c.query<{ data: { passwordReplaced: boolean } }>(`SELECT data FROM "AuditEvent" WHERE action = 'cluster.updated' AND data::text LIKE $1 ORDER BY at DESC LIMIT 1`, [`%kappa-admin-2%`])).rows[0]!.data);
    expect(updated.passwordReplaced).toBe(false);

    // Issue 30, finding 2: pointing the cluster elsewhere (or downgrading to PLAIN) keeps no stored password.
    const clusterId = await withDb(async (c) => (await c.query<{ id: string }>(`SELECT id FROM "Cluster" WHERE environment = $1`, [environment])).rows[0]!.id);
    const retarget = await admin.request.patch(`/api/v1/clusters/${clusterId}`, {
      data: { bootstrap: "127.0.0.1:3553", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "plain", adminUser: "kappa-admin-2" },
    });
    expect(retarget.status()).toBe(400);
    expect((await retarget.json()).error.fields.adminPassword[0]).toMatch(/^Enter the admin password again: .* bootstrap servers, security protocol, SASL mechanism\.$/);
    const unchanged = await withDb(async (c) => (await c.query<{ bootstrap: string; sealed: string }>(`SELECT bootstrap, "adminPasswordSealed" AS sealed FROM "Cluster" WHERE id = $1`, [clusterId])).rows[0]!);
    expect(unchanged).toEqual({ bootstrap: "kafka-1.prod.example:9093,kafka-2.prod.example:9093", sealed: stored });
    // In the form: the edit is refused at the password field.
    await admin.getByRole("button", { name: `Edit ${environment}` }).click();
    await edit.getByLabel("Bootstrap servers").fill("127.0.0.1:3553");
    await edit.getByRole("button", { name: `Save ${environment}` }).click();
    await expect(edit.getByText("Enter the admin password again")).toBeVisible();
    await edit.getByRole("button", { name: "Cancel" }).click();
    await admin.context().close();
  });

  test("an owner promotes; prod's bound refuses a wider product; a reviewer approves; the page shows both environments", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    const reviewer = await as(browser, "reviewer");
    const productName = `Promoted Events ${run}`;
    const productId = await activeProduct(owner.request, reviewer.request, productName, 2);
    const wideId = await activeProduct(owner.request, reviewer.request, `Wide Events ${run}`, 6);

    // Beyond prod's bound: refused with the reason, nothing promoted.
    await owner.goto(`/products/${wideId}`);
    const widePanel = owner.getByTestId("environments").locator("..");
    await owner.getByLabel("Promote to", { exact: true }).selectOption(environment);
    await owner.getByRole("button", { name: `Promote to ${environment}` }).click();
    await expect(owner.getByText(`${environment} allows at most 4 partitions; this product has 6.`)).toBeVisible();
    await expect(widePanel.getByTestId(`environment-${environment}`)).toHaveCount(0);

    await owner.goto(`/products/${productId}`);
    await owner.getByLabel("Promote to", { exact: true }).selectOption(environment);
    await owner.getByRole("button", { name: `Promote to ${environment}` }).click();
    const prod = owner.getByTestId(`environment-${environment}`);
    await expect(prod).toContainText("IN REVIEW");
    await expect(prod).toContainText("v1");
    // The requester cannot approve their own promotion: no button for them.
    await expect(prod.getByRole("button", { name: `Approve for ${environment}` })).toHaveCount(0);

    await reviewer.goto(`/products/${productId}`);
    const prodForReviewer = reviewer.getByTestId(`environment-${environment}`);
    await prodForReviewer.getByRole("button", { name: `Approve for ${environment}` }).click();
    await expect(prodForReviewer).toContainText("APPROVED");
    await expect(prodForReviewer).toContainText("waiting for the worker");

    // Both environments side by side on the product page.
    await owner.reload();
    const columns = owner.getByTestId("environments").getByRole("listitem");
    await expect(columns).toHaveCount(2);
    await expect(columns.nth(0)).toContainText("published here");
    await expect(columns.nth(0)).toContainText("ACTIVE");
    await expect(columns.nth(1)).toContainText(environment);
    await expect(columns.nth(1)).toContainText("APPROVED");
    await expect(columns.nth(1)).toContainText("Reviewer");

    const actions = await withDb(async (c) =>
      (await c.query<{ action: string }>(`SELECT a.action FROM "AuditEvent" a JOIN "ProductDeployment" d ON d.id = a."entityId" WHERE d."productId" = $1 ORDER BY a.at`, [productId])).rows.map((r) => r.action),
    );
    expect(actions).toEqual(["product.promotion.requested", "product.promotion.approved"]);
    promotedId = productId;
    devOnlyId = wideId;
    await owner.context().close();
    await reviewer.context().close();
  });

  test("a consumer subscribes in prod where the product is live there; the owner approves; the subscription and the panel name the environment", async ({ browser }) => {
    // Standing in for the worker, which makes an approved promotion ACTIVE once provisioned on that cluster.
    await withDb((c) => c.query(`UPDATE "ProductDeployment" SET status = 'ACTIVE', "provisionedAt" = now() WHERE "productId" = $1 AND environment = $2`, [promotedId, environment]));
    const consumer = await as(browser, "paymentsOwner");
    const owner = await as(browser, "ordersOwner");

    // Not promoted there: the form offers no environment choice, and the API refuses it with the reason.
    await consumer.goto(`/products/${devOnlyId}/subscribe`);
    await expect(consumer.getByLabel("Purpose")).toBeVisible();
    await expect(consumer.getByLabel("Environment")).toHaveCount(0);
    const accounts = (await (await consumer.request.get("/api/v1/service-accounts")).json()) as { id: string; domainId: string; isProducer: boolean; domain: { slug: string } }[];
    const account = accounts.find((a) => a.domain.slug === "payments" && !a.isProducer);
    expect(account).toBeDefined();
    const refused = await consumer.request.post("/api/v1/subscriptions", { data: { productId: devOnlyId, serviceAccountId: account?.id, purpose: "Reconciliation of payments in prod.", environment } });
    expect(refused.status()).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(`is not live in ${environment} (it has not been promoted there)`);

    await consumer.goto(`/products/${promotedId}/subscribe`);
    const choice = consumer.getByLabel("Environment");
    await expect(choice.getByRole("option")).toHaveCount(2);
    await expect(choice.getByRole("option").nth(1)).toHaveText(environment);
    await choice.selectOption(environment);
    await consumer.getByLabel("Purpose").fill("Reconciliation of payments against orders in prod.");
    await consumer.getByRole("button", { name: "Request subscription" }).click();
    await consumer.waitForURL(`**/products/${promotedId}`);
    const prodColumn = consumer.getByTestId(`environment-${environment}`);
    await expect(prodColumn.getByRole("list", { name: `Subscribers in ${environment}` })).toContainText("REQUESTED");

    // The product's owner approves (four eyes: not the requester); no worker runs here, so it stays APPROVED.
    await owner.goto(`/products/${promotedId}`);
    const ownersView = owner.getByTestId(`environment-${environment}`).getByRole("list", { name: `Subscribers in ${environment}` });
    await expect(ownersView).toContainText("Payments");
    const subscriptionId = await withDb(async (c) => (await c.query<{ id: string }>(`SELECT id FROM "Subscription" WHERE "productId" = $1 AND environment = $2`, [promotedId, environment])).rows[0]!.id);
    expect((await owner.request.post(`/api/v1/subscriptions/${subscriptionId}/approve`)).status()).toBe(200);
    await owner.reload();
    await expect(ownersView).toContainText("APPROVED");
    // The primary environment's column has no subscriber from this request.
    await expect(owner.getByTestId("environments").getByRole("listitem").first()).toContainText("Subscribers");
    await ownersView.getByRole("link").first().click();
    await expect(owner).toHaveURL(new RegExp(`/subscriptions/${subscriptionId}$`));
    await expect(owner.getByText("Environment", { exact: true })).toBeVisible();
    await expect(owner.getByText(environment, { exact: true })).toBeVisible();
    await expect(owner.getByTestId("bootstrap")).toHaveText("kafka-1.prod.example:9093,kafka-2.prod.example:9093");
    // Approved, not active yet: the page says what it waits for on that environment (no worker runs here). The
    // account's credential state decides the wording, so the test sets it and puts it back.
    const accountId = account?.id ?? "";
    const before = await withDb(async (c) => (await c.query<{ secretHash: string | null; scramSealed: string | null; secretIssuedAt: Date | null }>(`SELECT "secretHash", "scramSealed", "secretIssuedAt" FROM "ServiceAccount" WHERE id = $1`, [accountId])).rows[0]!);
    try {
      // No credentials yet: the worker issues them on that cluster itself.
      await withDb((c) => c.query(`UPDATE "ServiceAccount" SET "secretHash" = NULL, "secretIssuedAt" = NULL, "scramSealed" = NULL WHERE id = $1`, [accountId]));
      await owner.reload();
      await expect(owner.getByTestId("environment-wait")).toContainText(`the worker grants access on ${environment}'s cluster`);
      // Credentials issued before they were sealed for other environments: the page asks for one rotation.
      await withDb((c) => c.query(`UPDATE "ServiceAccount" SET "secretHash" = 'scrypt$legacy', "secretIssuedAt" = now() WHERE id = $1`, [accountId]));
      await owner.reload();
      await expect(owner.getByTestId("environment-wait")).toContainText(`Not usable in ${environment} yet`);
      await expect(owner.getByTestId("environment-wait")).toContainText("Rotate the credentials once");
    } finally {
      await withDb((c) => c.query(`UPDATE "ServiceAccount" SET "secretHash" = $2, "scramSealed" = $3, "secretIssuedAt" = $4 WHERE id = $1`, [accountId, before.secretHash, before.scramSealed, before.secretIssuedAt]));
    }
    await consumer.context().close();
    await owner.context().close();
  });

  test("a partition increase on the primary makes prod behind; promoting again waits for review, then prod has it", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    const reviewer = await as(browser, "reviewer");
    const increase = await owner.request.post(`/api/v1/products/${promotedId}/partitions`, { data: { partitions: 3, reason: "More parallel consumers." } });
    expect(increase.status()).toBe(201);
    const { id: changeId } = (await increase.json()) as { id: string };
    expect((await reviewer.request.post(`/api/v1/change-requests/${changeId}/approve`)).status()).toBe(200);

    await owner.goto(`/products/${promotedId}`);
    const prod = owner.getByTestId(`environment-${environment}`);
    await expect(prod.getByTestId("behind")).toContainText(`has 3 partitions, ${environment} has 2`);
    await expect(prod.getByTestId("behind")).toContainText("promote again");
    await owner.getByLabel("Promote to", { exact: true }).selectOption(environment);
    await owner.getByRole("button", { name: `Promote to ${environment}` }).click();
    await expect(prod.getByTestId("pending-update")).toContainText("Update in review: 3 partitions");
    // prod keeps what it runs until the review; the requester cannot approve it.
    await expect(prod).toContainText("ACTIVE");
    await expect(prod.getByRole("button", { name: `Approve for ${environment}` })).toHaveCount(0);

    await reviewer.goto(`/products/${promotedId}`);
    const forReviewer = reviewer.getByTestId(`environment-${environment}`);
    await forReviewer.getByRole("button", { name: `Approve for ${environment}` }).click();
    await expect(forReviewer.getByTestId("pending-update")).toHaveCount(0);
    await expect(forReviewer.getByTestId("behind")).toHaveCount(0);
    await owner.reload();
    await expect(prod.locator("dd").nth(1)).toHaveText("3");
    await owner.context().close();
    await reviewer.context().close();
  });
});
