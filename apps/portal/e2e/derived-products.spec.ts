import { randomBytes } from "node:crypto";
import { expect, type Browser, type Page } from "@playwright/test";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Derived products on Apache Flink (issue 34) in the browser, without Flink:
 * the journeys run with neither a worker nor a Flink SQL Gateway. The publish
 * form offers "Derived product (Flink SQL)" and says this environment has no
 * gateway and what to set; the catalog still refuses, naming it, an input the
 * domain holds no subscription to (that check comes before Flink is asked).
 * Planning against a real gateway is the worker suite's
 * (packages/worker/test/derived-products.integration.test.ts). The job panel
 * reads GET /api/v1/products/{id}/job from catalog rows: the test stands in
 * for registerDerivedProduct and the worker's observer by writing the
 * DerivedProduct row they would write, and moves the job through RUNNING,
 * FAILED and STOPPED.
 */

const topicOf = (name: string) => withDb((db) => one<{ topicName: string }>(db, `SELECT "topicName" FROM "DataProduct" WHERE name = $1`, [name])).then((r) => r.topicName);

/** A payments product (JSON Schema with these required properties) registered through the API as its owner; its id. */
async function registerPaymentsProduct(page: Page, name: string, description: string, partitions: number, properties: Record<string, { type: string }>): Promise<string> {
  const domain = await withDb((db) => one<{ id: string }>(db, `SELECT id FROM "Domain" WHERE slug = 'payments'`));
  const created = await page.request.post("/api/v1/products", {
    headers: { origin: new URL(test.info().project.use.baseURL ?? "http://localhost").origin },
    data: {
      domainId: domain.id,
      name,
      description,
      classification: "INTERNAL",
      freshnessSeconds: 120,
      availabilityPct: 99.5,
      partitions,
      contactEmail: "owner@payments.example",
      schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object", properties, required: Object.keys(properties) }) },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

/**
 * An orders product without PII fields that the payments domain holds an approved subscription to (through the API);
 * its topic. A product of this test's own, so that the form's checks do not depend on the demo's Order Events (whose
 * PII field the payments domain may read: the seed grants its subscription's PII need for the demo's derived product).
 * Stand-in for review and provisioning: the row is set ACTIVE.
 */
async function subscribedOrdersInput(browser: Browser): Promise<string> {
  const owner = await as(browser, "ordersOwner");
  const payer = await as(browser, "paymentsOwner");
  const headers = { origin: new URL(test.info().project.use.baseURL ?? "http://localhost").origin };
  try {
    const orders = await withDb((db) => one<{ id: string }>(db, `SELECT id FROM "Domain" WHERE slug = 'orders'`));
    const properties = { merchant: { type: "string" }, amount: { type: "number" }, placedAt: { type: "string", format: "date-time" } };
    const created = await owner.request.post("/api/v1/products", {
      headers,
      data: {
        domainId: orders.id,
        name: `Shop Orders ${randomBytes(2).toString("hex")}`,
        description: "Orders placed in the shop, with merchant, amount and time: an input of derived products.",
        classification: "INTERNAL",
        freshnessSeconds: 60,
        availabilityPct: 99.5,
        partitions: 1,
        contactEmail: "owner@orders.example",
        schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object", properties, required: Object.keys(properties) }) },
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const product = (await created.json()) as { id: string; topicName: string };
    await withDb((db) => db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [product.id]));
    const account = await withDb((db) => one<{ id: string }>(db, `SELECT id FROM "ServiceAccount" WHERE name = 'payments-reconciliation'`));
    const requested = await payer.request.post("/api/v1/subscriptions", { headers, data: { productId: product.id, serviceAccountId: account.id, purpose: "Revenue per merchant per minute, derived in the stream." } });
    expect(requested.status(), await requested.text()).toBe(201);
    const approved = await owner.request.post(`/api/v1/subscriptions/${((await requested.json()) as { id: string }).id}/approve`, { headers });
    expect(approved.status(), await approved.text()).toBe(200);
    return product.topicName;
  } finally {
    await Promise.all([owner.context().close(), payer.context().close()]);
  }
}

test("the publish form offers a derived product: the statement editor, Validate, the missing Flink gateway and a refused input named — by keyboard and at phone width", async ({ browser }) => {
  const [shopOrders, orderStatus] = await Promise.all([subscribedOrdersInput(browser), topicOf("Order Status")]);
  const page = await as(browser, "paymentsOwner");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/products/new");

  // A stream product by default: its schema editor, no statement.
  await expect(page.getByLabel("Definition")).toBeVisible();
  await expect(page.getByLabel("Flink SQL statement")).toHaveCount(0);
  // Chosen by keyboard: the kind's radio group, arrow key to the second choice.
  await page.getByRole("radio", { name: /Stream product/ }).focus();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("radio", { name: /Derived product \(Flink SQL\)/ })).toBeChecked();
  await expect(page.getByLabel("Definition")).toHaveCount(0);

  // This environment has no Flink SQL Gateway: said before anything is typed, with the variable to set.
  const note = page.getByTestId("no-flink-gateway");
  await expect(note).toContainText("This environment has no Flink SQL Gateway");
  await expect(note).toContainText("set FLINK_SQL_GATEWAY_URL");
  await expect(note).toContainText("npm run flink -w packages/engines");

  const editor = page.getByLabel("Flink SQL statement");
  const validate = page.getByRole("button", { name: "Validate" });
  await expect(validate).toBeDisabled();
  // The editor fits the phone's width (no sideways scrolling of the page).
  const box = await editor.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);

  // An input the payments domain holds no approved subscription to (its request for Order Status is pending): refused, naming it.
  await editor.fill(`SELECT orderId, status\nFROM \`${orderStatus}\``);
  await validate.focus();
  const refused = page.waitForResponse((r) => r.url().endsWith("/api/v1/derived/validate"));
  await page.keyboard.press("Enter");
  expect((await refused).status()).toBe(403);
  const error = page.getByTestId("derived-error");
  await expect(error).toContainText("Your domain may not read an input");
  await expect(error).toContainText(`The domain holds no approved subscription to ${orderStatus}`);
  await expect(editor).toHaveAttribute("aria-invalid", "true");

  // A subscribed input: the catalog lets it through to Flink, and there is none here — the same clear message, nothing else.
  await editor.fill(`SELECT merchant, window_start, COUNT(*) AS orders\nFROM TABLE(TUMBLE(TABLE \`${shopOrders}\`, DESCRIPTOR(placedAt), INTERVAL '1' MINUTE))\nGROUP BY merchant, window_start, window_end`);
  const unconfigured = page.waitForResponse((r) => r.url().endsWith("/api/v1/derived/validate"));
  await validate.click();
  const answer = await unconfigured;
  expect(answer.status()).toBe(503);
  expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("NOT_CONFIGURED");
  await expect(page.getByRole("button", { name: "Validate" })).toBeEnabled();
  await expect(error).toHaveCount(0);
  await expect(page.getByTestId("derived-result")).toHaveCount(0);
  await expect(note).toContainText("set FLINK_SQL_GATEWAY_URL");

  // Registering without a statement is refused on the field, before anything is sent.
  await editor.fill("");
  await page.getByRole("button", { name: "Register product" }).click();
  await expect(page.locator("#statement-error")).toHaveText("Write the Flink SQL statement the product is computed by.");
  await page.context().close();
});

test("a derived product's page shows its Flink job: state, uptime, rates, watermark lag, checkpoint, restarts, Flink's exception, why it stopped, and the statement", async ({ browser }) => {
  const page = await as(browser, "paymentsOwner");
  const orderEvents = await topicOf("Order Events");
  // A product registered through the API; the test then writes the DerivedProduct row that registerDerivedProduct (which needs Flink) and the worker's observer would.
  const productId = await registerPaymentsProduct(page, `Revenue per Minute ${randomBytes(2).toString("hex")}`, "Order revenue per merchant per minute, computed in the stream by Flink.", 3, { merchant: { type: "string" }, revenue: { type: "number" } });
  const statement = `SELECT merchant, window_start, window_end, SUM(amount) AS revenue\nFROM TABLE(TUMBLE(TABLE \`${orderEvents}\`, DESCRIPTOR(placedAt), INTERVAL '1' MINUTE))\nGROUP BY merchant, window_start, window_end`;
  const jobId = randomBytes(16).toString("hex");
  const now = Date.now();
  // Stand-in for the worker: the job as its observer records it from Flink's REST API.
  await withDb((db) =>
    db.query(
      `INSERT INTO "DerivedProduct" ("productId", statement, "jobId", "jobState", "jobStartedAt", "jobMetrics", "jobObservedAt", "updatedAt")
       VALUES ($1, $2, $3, 'RUNNING', $4, $5, now(), now())`,
      [productId, statement, jobId, new Date(now - 2 * 3_600_000 - 5 * 60_000), JSON.stringify({ recordsInPerSecond: 12.5, recordsOutPerSecond: 0.25, watermarkLagMs: 4_200, lastCheckpointAt: new Date(now - 30_000).toISOString(), restarts: 1 })],
    ),
  );
  try {
    await page.goto(`/products/${productId}#live`);
    const panel = page.getByTestId("derived-job");
    const fact = (term: string) => panel.locator("dl > div", { has: page.locator("dt", { hasText: new RegExp(`^${term}$`) }) }).locator("dd");
    await expect(page.getByTestId("job-state")).toHaveText("Running");
    await expect(fact("Uptime")).toHaveText("2 hours");
    await expect(fact("Records in")).toHaveText("12.5 /s");
    await expect(fact("Records out")).toHaveText("0.25 /s");
    await expect(fact("Watermark lag")).toHaveText("4.2 s");
    await expect(fact("Last checkpoint")).toHaveText(/^\d+ seconds ago$/);
    await expect(fact("Restarts")).toHaveText("1");
    await expect(fact("Job id")).toHaveText(jobId);
    await expect(page.getByLabel("Flink SQL statement")).toHaveText(statement);
    await expect(page.getByTestId("job-error")).toHaveCount(0);

    // Failed: Flink's exception, as the worker recorded it.
    await withDb((db) => db.query(`UPDATE "DerivedProduct" SET "jobState" = 'FAILED', "jobError" = $2, "jobObservedAt" = now() WHERE "productId" = $1`, [productId, "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [orders.order-events.v1]"]));
    await page.reload();
    await expect(page.getByTestId("job-state")).toHaveText("Failed");
    await expect(panel.getByRole("heading", { name: "Flink's exception" })).toBeVisible();
    await expect(page.getByTestId("job-error")).toContainText("TopicAuthorizationException: Not authorized to access topics");
    await expect(fact("Uptime")).toHaveText("—");

    // Stopped by the worker when the input's subscription was revoked: when and why.
    const reason = `The subscription of payments to its input ${orderEvents} was revoked: Order events move to a new contract next week.`;
    await withDb((db) => db.query(`UPDATE "DerivedProduct" SET "jobState" = 'STOPPED', "jobError" = NULL, "jobStoppedAt" = now() - interval '3 minutes', "jobStopReason" = $2 WHERE "productId" = $1`, [productId, reason]));
    await page.reload();
    await expect(page.getByTestId("job-state")).toHaveText("Stopped");
    await expect(page.getByTestId("job-stopped")).toContainText("Stopped 3 minutes ago");
    await expect(page.getByTestId("job-stopped")).toContainText(reason);
    await expect(page.getByTestId("job-error")).toHaveCount(0);
    // The API says the same (GET /api/v1/products/{id}/job).
    const job = (await (await page.request.get(`/api/v1/products/${productId}/job`)).json()) as Record<string, unknown>;
    expect(job).toMatchObject({ state: "STOPPED", jobId, stopReason: reason, error: null });
  } finally {
    await withDb(async (db) => {
      await db.query(`DELETE FROM "DerivedProduct" WHERE "productId" = $1`, [productId]);
    });
    await page.context().close();
  }
});

test("owners pause, resume and replay a derived product's job from its panel, by keyboard, with a confirmation; the worker's progress shows; a statement approved while paused is said to run on resume; others get no buttons", async ({ browser }) => {
  const shopOrders = await subscribedOrdersInput(browser);
  const page = await as(browser, "paymentsOwner");
  const productId = await registerPaymentsProduct(page, `Revenue Life Cycle ${randomBytes(2).toString("hex")}`, "Order revenue per merchant per minute, paused, resumed and replayed.", 1, { merchant: { type: "string" } });
  const jobId = randomBytes(16).toString("hex");
  // Stand-in for review, provisioning (ACTIVE) and the worker's deployment (planning the statement needs Flink).
  await withDb(async (db) => {
    await db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [productId]);
    await db.query(`INSERT INTO "DerivedProduct" ("productId", statement, "jobId", "jobState", "jobObservedAt", "updatedAt") VALUES ($1, $2, $3, 'RUNNING', now(), now())`, [productId, `SELECT merchant FROM \`${shopOrders}\``, jobId]);
  });
  const other = await as(browser, "ordersOwner");
  try {
    await page.goto(`/products/${productId}#live`);
    await expect(page.getByTestId("job-state")).toHaveText("Running");
    // Change statement…: the form starts from the current statement; proposing plans it with Flink, which this environment lacks.
    await expect(page.getByTestId("job-statement-version")).toHaveText("v1");
    await page.getByRole("button", { name: "Change statement…" }).click();
    const change = page.getByTestId("job-statement-form");
    await expect(change.getByLabel("Flink SQL statement")).toHaveValue(`SELECT merchant FROM \`${shopOrders}\``);
    await expect(change.getByRole("button", { name: "Propose for review" })).toBeDisabled();
    await change.getByLabel("Flink SQL statement").fill(`SELECT merchant, amount FROM \`${shopOrders}\``);
    await change.getByLabel("Reason (for the reviewer)").fill("Show the amount too.");
    const proposed = page.waitForResponse((r) => r.url().endsWith(`/api/v1/products/${productId}/derived`));
    await change.getByRole("button", { name: "Propose for review" }).click();
    expect((await proposed).status()).toBe(503);
    await expect(change.getByRole("alert").last()).toContainText("set FLINK_SQL_GATEWAY_URL");
    await change.getByRole("button", { name: "Cancel" }).click();
    await expect(change).toHaveCount(0);
    // Pause: by keyboard, a confirmation that opens on Cancel.
    await page.getByRole("button", { name: "Pause", exact: true }).focus();
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("alertdialog", { name: "Pause the Flink job?" });
    await expect(confirm).toContainText("Flink stops the job with a savepoint");
    await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Shift+Tab");
    await expect(confirm.getByRole("button", { name: "Pause with a savepoint" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("job-command")).toHaveText("Pause: Waiting for the worker.");
    await expect(page.getByRole("button", { name: "Replay…" })).toBeDisabled();

    // The worker's part, as it records it: the job stopped with a savepoint.
    const savepoint = `file:/var/flink/savepoints/savepoint-${jobId.slice(0, 6)}-0a1b2c3d4e5f`;
    await withDb(async (db) => {
      await db.query(`UPDATE "DerivedProduct" SET "jobState" = 'PAUSED', "jobPausedAt" = now(), "jobSavepointPath" = $2 WHERE "productId" = $1`, [productId, savepoint]);
      await db.query(`UPDATE "DerivedJobCommand" SET status = 'DONE', progress = $2, "savepointPath" = $3, "finishedAt" = now() WHERE "productId" = $1`, [productId, `Paused; savepoint at ${savepoint}.`, savepoint]);
    });
    await page.reload();
    await expect(page.getByTestId("job-state")).toHaveText("Paused");
    await expect(page.getByTestId("job-paused")).toContainText(`Flink stopped the job with a savepoint at ${savepoint}`);
    await expect(page.getByRole("button", { name: "Pause", exact: true })).toHaveCount(0);
    // A paused job takes a new statement too: the form says that, approved, the job stays paused until resumed.
    await page.getByRole("button", { name: "Change statement…" }).click();
    await expect(page.getByTestId("job-statement-form")).toContainText("The job is paused: once approved it stays paused, and when you resume it the new statement starts from the pause's savepoint");
    await page.getByTestId("job-statement-form").getByRole("button", { name: "Cancel" }).click();
    // Approved while paused (the catalog's part, as the approval records it): the panel and the resume dialog say which version the resume runs.
    await withDb((db) => db.query(`UPDATE "DerivedProduct" SET "statementVersion" = 2, "jobStatementVersion" = 1 WHERE "productId" = $1`, [productId]));
    await page.reload();
    await expect(page.getByTestId("job-statement-on-resume")).toHaveText(
      "Statement version 2 was approved while it was paused: resume runs it (not version 1), restoring the savepoint where Flink can map its state to the new statement, otherwise without state from where the job had read.",
    );
    await expect(page.getByTestId("job-statement-version")).toHaveText("v1 (v2 approved while paused: it runs on resume)");
    await page.getByRole("button", { name: "Resume" }).click();
    const resume = page.getByRole("alertdialog", { name: "Resume the Flink job?" });
    await expect(resume).toContainText("Statement version 2, approved while the job was paused, starts from the savepoint");
    await resume.getByRole("button", { name: "Resume from the savepoint" }).click();
    await expect(page.getByTestId("job-command")).toHaveText("Resume: Waiting for the worker.");
    await withDb((db) => db.query(`UPDATE "DerivedJobCommand" SET status = 'DONE', "finishedAt" = now() WHERE "productId" = $1`, [productId]));
    await page.reload();

    // Replay…: what it does to the topic, a point in the future refused on its field, then from the earliest offsets.
    await page.getByRole("button", { name: "Replay…" }).click();
    const form = page.getByRole("dialog", { name: "Replay the derived product from an earlier point" });
    await expect(form).toContainText("the recomputed results are appended again after the earlier ones");
    await expect(form.getByRole("radio", { name: "their earliest offsets" })).toBeFocused();
    await form.getByRole("radio", { name: "a date and time" }).check();
    await form.getByLabel("From (UTC)").fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 19));
    await form.getByRole("button", { name: "Replay", exact: true }).click();
    await expect(form.locator("[data-field-error]")).toHaveText("must not be in the future");
    await form.getByRole("radio", { name: "their earliest offsets" }).check();
    await form.getByRole("button", { name: "Replay", exact: true }).click();
    await expect(page.getByTestId("job-command")).toHaveText("Replay: Waiting for the worker.");
    const job = (await (await page.request.get(`/api/v1/products/${productId}/job`)).json()) as { command: Record<string, unknown> };
    expect(job.command).toMatchObject({ kind: "REPLAY", from: "earliest", status: "PENDING" });

    // Someone who does not own the product's domain sees the job, not the buttons.
    await other.goto(`/products/${productId}#live`);
    await expect(other.getByTestId("job-command")).toHaveText("Replay: Waiting for the worker.");
    await expect(other.getByTestId("job-controls")).toHaveCount(0);
  } finally {
    await withDb(async (db) => {
      await db.query(`DELETE FROM "DerivedJobCommand" WHERE "productId" = $1`, [productId]);
      await db.query(`DELETE FROM "DerivedProduct" WHERE "productId" = $1`, [productId]);
    });
    await page.context().close();
    await other.context().close();
  }
});
