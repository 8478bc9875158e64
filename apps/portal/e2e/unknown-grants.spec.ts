import { expect } from "@playwright/test";
import { activeOrdersProduct } from "./api-setup";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Issue 31, point 2 (worker off): an ACL that appears on a managed topic and
 * that no catalog grant explains shows in the product's drift view and in the
 * lineage's "needs attention" list. The test stands in for the worker's
 * cluster scan by writing the topic's observed ACLs (marked below).
 */

const run = Date.now().toString(36);
const productName = `Parcel Feed ${run}`;
const principal = `User:legacy-etl-${run}`;

test("an ACL made outside the catalog is in the drift view and the lineage's needs-attention list", async ({ browser }) => {
  const { owner, id: productId, topicName } = await activeOrdersProduct(browser, { name: productName, description: "Every parcel handed to a carrier.", recordName: `Parcel${run}` });
  // Standing in for the worker: its last scan found the producer's ACL and one made by hand.
  const acl = (p: string, operation: string) => ({ resourceType: "TOPIC", resourceName: topicName, patternType: "LITERAL", principal: p, host: "*", operation, permission: "ALLOW" });
  await withDb(async (db) => {
    await db.query(`INSERT INTO "ClusterTopic" (name, "productId", partitions, acls) VALUES ($1, $2, 1, $3::jsonb)`, [topicName, productId, JSON.stringify([acl("User:orders-producer", "WRITE"), acl(principal, "READ")])]);
  });

  await owner.goto(`/products/${productId}`);
  const unknown = owner.getByTestId("unknown-grants");
  // The drift card loads when it comes near the viewport: scroll down until it has.
  await expect
    .poll(async () => {
      await owner.mouse.wheel(0, 1200);
      return unknown.count();
    }, { timeout: 30_000, intervals: [500] })
    .toBe(1);
  await expect(owner.getByText("Grants the catalog does not know (1)")).toBeVisible();
  await expect(unknown).toContainText(`${principal} · ALLOW READ from *`);
  await expect(unknown).toContainText("an ACL made outside Kappa Mesh");
  await expect(unknown).not.toContainText("User:orders-producer");

  await owner.goto(`/lineage?product=${productId}`);
  const flag = owner.getByTestId("lineage-flag").filter({ hasText: principal });
  await expect(flag).toContainText("an ACL the catalog does not know (ALLOW READ)");
  await expect(flag).toContainText(productName);
});

test("an admin sees an unmanaged topic with who can claim it", async ({ browser }) => {
  const topic = `aaa-unmanaged-${run}`;
  // Standing in for the worker's cluster scan: a topic no product owns.
  await withDb((db) => db.query(`INSERT INTO "ClusterTopic" (name, partitions) VALUES ($1, 1)`, [topic]));
  const admin = await as(browser, "admin");
  await admin.goto("/cluster");
  const row = admin.locator(`[data-testid="cluster-topic"][data-topic="${topic}"]`);
  await expect(row).toContainText("unmanaged");
  await expect(row.getByTestId("claim-who")).toHaveText("Unmanaged: an owner of a domain can claim it as a data product of that domain (you own no domain).");
  await expect(row.getByRole("link", { name: `Claim ${topic} as data product` })).toHaveCount(0);
  // A topic under a domain's prefix is that domain's to claim, and the row says so.
  const prefixed = `orders.aaa-export-${run}`;
  await withDb((db) => db.query(`INSERT INTO "ClusterTopic" (name, partitions) VALUES ($1, 1)`, [prefixed]));
  await admin.getByLabel("Topic name").fill(`aaa-export-${run}`);
  await expect(admin.locator(`[data-testid="cluster-topic"][data-topic="${prefixed}"]`).getByTestId("claim-who")).toHaveText(
    `Unmanaged: its name lies under the Orders domain's prefix ("orders."), so only that domain's owners can claim it as a data product (you own no domain).`,
  );
});
