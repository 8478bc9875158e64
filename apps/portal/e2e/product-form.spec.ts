import { expect } from "@playwright/test";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Issue 31, point 6: the new-product form opens without errors; a field is
 * validated when the user leaves it; the hints give the policy's bounds for
 * the chosen classification; compact with tiered storage is explained on the
 * spot, before submitting.
 */

test("the new-product form: no errors on open, validation on leaving a field, policy bounds per classification, compact + tiered explained at once", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  const problems: string[] = [];
  owner.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  owner.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  await owner.goto("/products/new");
  await expect(owner.getByLabel("Name")).toBeVisible();
  // Nothing is flagged before the user has done anything.
  await expect(owner.locator("[data-field-error]")).toHaveCount(0);
  expect(problems).toEqual([]);

  // Leaving a field validates it, without submitting.
  await owner.getByLabel("Description").focus();
  await owner.getByLabel("Description").blur();
  await expect(owner.locator("#description-error")).toBeVisible();
  await owner.getByLabel("Description").fill("Every parcel scan at a depot, as it happens.");
  await owner.getByLabel("Description").blur();
  await expect(owner.locator("#description-error")).toHaveCount(0);

  // The hints follow the policy for the chosen classification.
  const partitionsHint = owner.locator("#partitions-hint");
  await expect(partitionsHint).toContainText("1–64 for Internal (policy rule topic.partitions)");
  await owner.getByLabel("Classification").selectOption("RESTRICTED");
  await expect(partitionsHint).toContainText("1–12 for Restricted (policy rule topic.partitions)");
  await expect(owner.locator("#retention-hint")).toContainText("at least 1 day, at most 1 year, never forever for Restricted");

  // Compact + tiered: refused on the spot, with the reason.
  await owner.getByLabel("Cleanup policy").selectOption("compact");
  await owner.getByLabel("Move cold segments to object storage").check();
  await expect(owner.locator("#tieredStorage-error")).toHaveText(/^Compacted topics are not tiered/);
  await owner.getByLabel("Move cold segments to object storage").uncheck();
  await expect(owner.locator("#tieredStorage-error")).toHaveCount(0);
  expect(problems).toEqual([]);
});

/*
 * Issue 28: on brokers without tiered storage (as the worker read them) the
 * publish form says so before anyone submits, in the words the server
 * refuses with, and a new product starts untiered.
 */
test("the new-product form on an environment without tiered storage: the option is off, disabled and explained", async ({ browser }) => {
  // Stands in for the worker: it registers the primary cluster and records what its brokers offer
  // (journeys run without a worker, so there may be no cluster row yet: one is added and removed).
  const existing = await withDb((c) => c.query<{ id: string; environment: string; tieredStorage: boolean | null }>(`SELECT id, environment, "tieredStorage" FROM "Cluster" WHERE "primary"`));
  const before =
    existing.rows[0] ??
    (await withDb((c) =>
      one<{ id: string; environment: string; tieredStorage: boolean | null }>(
        c,
        `INSERT INTO "Cluster" (id, environment, "primary", bootstrap, "securityProtocol", "saslMechanism", "updatedAt") VALUES ('e2e-untiered', 'untiered', true, '127.0.0.1:1', 'SASL_PLAINTEXT', 'scram-sha-512', now()) RETURNING id, environment, "tieredStorage"`,
      ),
    ));
  const added = existing.rows.length === 0;
  await withDb((c) => c.query(`UPDATE "Cluster" SET "tieredStorage" = false WHERE id = $1`, [before.id]));
  try {
    const owner = await as(browser, "ordersOwner");
    await owner.goto("/products/new");
    const tiered = owner.getByLabel("Move cold segments to object storage");
    await expect(tiered).not.toBeChecked();
    await expect(tiered).toBeDisabled();
    await expect(owner.locator("#tieredStorage-unavailable")).toContainText(`the ${before.environment} environment's Kafka brokers run without tiered storage`);
    await expect(owner.getByLabel("Local hot window")).toHaveCount(0);
  } finally {
    await withDb((c) => (added ? c.query(`DELETE FROM "Cluster" WHERE id = $1`, [before.id]) : c.query(`UPDATE "Cluster" SET "tieredStorage" = $2 WHERE id = $1`, [before.id, before.tieredStorage])));
  }
});
