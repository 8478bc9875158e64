import { expect } from "@playwright/test";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * The lineage graph (issue 31, point 10) is laid out left to right in the
 * direction data flows: the input product, the accounts that read it, then
 * the product derived from it; the minimap draws the graph. The seeded
 * "Order Events" (orders) is read by payments-reconciliation; the test
 * declares it as an input of the payments domain's "Payments Captured" and
 * takes that back after.
 */
test("lineage nodes run left to right by flow: input → its reader → the derived product; the minimap shows them", async ({ browser }) => {
  const ids = await withDb((db) =>
    one<{ input: string; derived: string; account: string }>(
      db,
      `SELECT (SELECT id FROM "DataProduct" WHERE name = 'Order Events') AS input,
              (SELECT id FROM "DataProduct" WHERE name = 'Payments Captured') AS derived,
              (SELECT id FROM "ServiceAccount" WHERE name = 'payments-reconciliation') AS account`,
    ),
  );
  const owner = await as(browser, "paymentsOwner");
  const before = ((await (await owner.request.get(`/api/v1/products/${ids.derived}`)).json()) as { inputs?: { inputProductId: string }[] }).inputs?.map((i) => i.inputProductId) ?? [];
  const set = await owner.request.put(`/api/v1/products/${ids.derived}/inputs`, { data: { inputProductIds: [...new Set([...before, ids.input])] } });
  expect(set.status()).toBe(200);
  try {
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto(`/lineage?product=${ids.input}`);
    const graph = reviewer.getByTestId("lineage-graph");
    const node = (id: string) => graph.locator(`.react-flow__node[data-id="${id}"]`);
    await expect(node(`product:${ids.input}`)).toBeVisible();
    await expect(node(`account:${ids.account}`)).toBeVisible();
    await expect(node(`product:${ids.derived}`)).toBeVisible();
    const x = async (id: string) => (await node(id).boundingBox())!.x;
    const input = await x(`product:${ids.input}`);
    const reader = await x(`account:${ids.account}`);
    const derived = await x(`product:${ids.derived}`);
    expect(input).toBeLessThan(reader);
    expect(reader).toBeLessThan(derived);
    // The minimap draws one shape per node, each with a size.
    const minimap = graph.locator(".react-flow__minimap");
    await expect(minimap).toBeVisible();
    const shapes = minimap.locator(".react-flow__minimap-node");
    await expect(shapes).toHaveCount(await graph.locator(".react-flow__node").count());
    for (const shape of await shapes.all()) {
      const box = (await shape.boundingBox())!;
      expect(box.width).toBeGreaterThan(1);
      expect(box.height).toBeGreaterThan(0.5);
    }
  } finally {
    const reset = await owner.request.put(`/api/v1/products/${ids.derived}/inputs`, { data: { inputProductIds: before } });
    expect(reset.status()).toBe(200);
  }
});
