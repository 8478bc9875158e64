import { expect, type Page } from "@playwright/test";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * The product page's information architecture (issue 31, points 8, 10 and
 * 11): a header with what matters, six sections with deep links, live panels
 * that poll only while on screen and whose code loads only when shown, and
 * charts drawn inside their plot area at desktop and phone widths. "Order
 * Events" is the seeded APPROVED product of the orders domain; where a test
 * needs the worker's figures it writes them itself ("stand-in for the
 * worker") and removes them after.
 */

interface Seeded {
  productId: string;
  topic: string;
  subscriptionId: string;
}

async function orderEvents(): Promise<Seeded> {
  return withDb((db) =>
    one<Seeded>(
      db,
      `SELECT p.id AS "productId", p."topicName" AS topic, s.id AS "subscriptionId"
         FROM "DataProduct" p JOIN "Subscription" s ON s."productId" = p.id JOIN "ServiceAccount" a ON a.id = s."serviceAccountId"
        WHERE p.name = 'Order Events' AND a.name = 'payments-reconciliation' LIMIT 1`,
    ),
  );
}

const SECTIONS = [
  ["overview", "Overview"],
  ["schema", "Schema & contract"],
  ["access", "Access"],
  ["live", "Live"],
  ["operations", "Operations"],
  ["history", "History"],
] as const;

test("the header says status, owners, classification and freshness; each of the six sections has a deep link", async ({ browser }) => {
  const { productId } = await orderEvents();
  const page = await as(browser, "ordersOwner");
  const detail = (await (await page.request.get(`/api/v1/products/${productId}`)).json()) as { status: string; classification: string; owners: { name: string }[] };

  // A deep link opens its section: #live is on screen, its panels loaded.
  await page.goto(`/products/${productId}#live`);
  const live = page.getByRole("region", { name: "Live", exact: true });
  await expect(live.getByTestId("tiered-storage")).toBeVisible();
  await expect(live.getByRole("heading", { name: "Live", exact: true })).toBeInViewport();

  const header = page.getByTestId("product-header");
  await expect(header.getByRole("heading", { level: 1 })).toContainText("Order Events");
  await expect(header.getByTestId("header-status")).toContainText(new RegExp(detail.status, "i"));
  await expect(header.getByTestId("header-classification")).toContainText(new RegExp(detail.classification, "i"));
  for (const owner of detail.owners) await expect(header.getByTestId("header-owners")).toContainText(owner.name);
  await expect(header.getByTestId("header-freshness")).toContainText(/within \d/);
  await expect(header.getByRole("link", { name: "Edit" })).toBeVisible();

  const nav = page.getByRole("navigation", { name: "Product sections" });
  await expect(nav.getByRole("link")).toHaveText(SECTIONS.map(([, label]) => label));
  await expect(nav.getByRole("link", { name: "Live", exact: true })).toHaveAttribute("aria-current", "location");
  for (const [id, label] of SECTIONS) {
    await nav.getByRole("link", { name: label, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`#${id}$`));
    await expect(page.getByRole("region", { name: label, exact: true }).getByRole("heading", { name: label, exact: true })).toBeInViewport();
    // The bar stays on top while scrolling.
    await expect(nav).toBeInViewport();
  }
  await expect(page.getByRole("region", { name: "History", exact: true }).getByTestId("history")).toBeVisible();
  await expect(page.getByRole("region", { name: "Access", exact: true }).getByTestId("subscriptions")).toBeVisible();

  // Opening a link to another section, also as a fresh load.
  await page.goto(`/products/${productId}#operations`);
  await expect(page.getByRole("region", { name: "Operations", exact: true }).getByRole("heading", { name: "Operations", exact: true })).toBeInViewport();
  await page.context().close();
});

test("the live panels poll only while the Live section is on screen", async ({ browser }) => {
  const { productId } = await orderEvents();
  const page = await as(browser, "ordersOwner");
  let polls = 0;
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path === `/api/v1/products/${productId}/observations` || path === `/api/v1/products/${productId}/slo`) polls++;
  });
  await page.goto(`/products/${productId}`);
  const live = page.getByRole("region", { name: "Live", exact: true });
  // Off screen the panels still load (a few seconds after the page is idle, for search in the page and screen readers), paused.
  await expect(live.getByTestId("tiered-storage")).toBeAttached();
  await expect(live.getByText("Paused while off screen").first()).toBeAttached();
  await expect(live.getByTestId("freshness")).toBeAttached();
  await expect(live).not.toBeInViewport();
  const before = polls;
  // Three poll periods: nothing is asked while nobody can see it.
  await page.waitForTimeout(9_000);
  expect(polls).toBe(before);

  await page.getByRole("navigation", { name: "Product sections" }).getByRole("link", { name: "Live", exact: true }).click();
  await expect(live.getByText("Live · every 3 s").first()).toBeVisible();
  await expect.poll(() => polls, { timeout: 30_000 }).toBeGreaterThanOrEqual(before + 4);
  await page.context().close();
});

/** Holds the page's idle moment (components/page-idle.ts waits for one requestIdleCallback): nothing deferred to idle loads. */
async function holdIdle(page: Page): Promise<void> {
  await page.addInitScript(() => {
    window.requestIdleCallback = () => 0;
  });
}

test("the Live section's code (panels, charts) is not in the page's first load; it loads when the section is shown", async ({ browser }) => {
  const { productId } = await orderEvents();
  const page = await as(browser, "paymentsOwner");
  await holdIdle(page);
  const scripts: { url: string; body: Promise<string> }[] = [];
  page.on("response", (r) => {
    if (new URL(r.url()).pathname.startsWith("/_next/static/chunks/") && r.url().endsWith(".js")) scripts.push({ url: r.url(), body: r.text() });
  });
  // A text only the Live section's lag panel has.
  const marker = "consumer groups has committed offsets on this topic yet";
  const loaded = async () => (await Promise.all(scripts.map((s) => s.body))).some((b) => b.includes(marker));
  await page.goto(`/products/${productId}`);
  await page.waitForLoadState("networkidle");
  await expect(page.getByTestId("product-status")).toBeVisible();
  expect(scripts.length).toBeGreaterThan(0);
  expect(await loaded()).toBe(false);

  await page.getByRole("navigation", { name: "Product sections" }).getByRole("link", { name: "Live", exact: true }).click();
  await expect(page.getByRole("region", { name: "Live", exact: true }).getByTestId("tiered-storage")).toBeVisible();
  await expect.poll(loaded).toBe(true);
  await page.context().close();
});

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The plot area (the horizontal grid lines' extent), the y-axis labels and what is drawn, of one chart. */
async function chartGeometry(page: Page, testId: string, shapes: string) {
  return page.getByTestId(testId).evaluate((chart, selector) => {
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    const lines = [...chart.querySelectorAll(".recharts-cartesian-grid-horizontal line")].map(box);
    const plot = { left: Math.min(...lines.map((l) => l.left)), right: Math.max(...lines.map((l) => l.right)), top: Math.min(...lines.map((l) => l.top)), bottom: Math.max(...lines.map((l) => l.bottom)) };
    const yLabels = [...chart.querySelectorAll(".recharts-yAxis .recharts-cartesian-axis-tick-value")].map(box);
    return { plot, yLabels, shapes: [...chart.querySelectorAll(selector)].map(box), chart: box(chart), viewport: window.innerWidth };
  }, shapes);
}

function expectInside(what: string, shapes: Box[], plot: Box, yLabels: Box[], chart: Box, viewport: number) {
  expect(shapes.length, `${what}: something drawn`).toBeGreaterThan(0);
  const labelsRight = Math.max(...yLabels.map((l) => l.right));
  for (const s of shapes) {
    expect(s.left, `${what} starts inside the plot area`).toBeGreaterThanOrEqual(plot.left - 0.5);
    expect(s.right, `${what} ends inside the plot area`).toBeLessThanOrEqual(plot.right + 0.5);
    expect(s.left, `${what} clear of the y-axis labels`).toBeGreaterThanOrEqual(labelsRight);
  }
  expect(plot.right).toBeLessThanOrEqual(chart.right + 0.5);
  expect(chart.right).toBeLessThanOrEqual(viewport);
}

test("throughput bars and lag lines stay inside their plot area, at desktop and phone widths", async ({ browser }) => {
  const { productId, topic, subscriptionId } = await orderEvents();
  const groupId = "payments-reconciliation.charts-e2e";
  // Stand-in for the worker: a topic observed for ten minutes with traffic, and a subscriber's lag.
  await withDb(async (db) => {
    await db.query(`DELETE FROM "TopicObservation" WHERE topic = $1`, [topic]);
    await db.query(`DELETE FROM "TopicObservationSample" WHERE topic = $1`, [topic]);
    await db.query(
      `INSERT INTO "TopicObservation" (topic, "productId", partitions, "endOffset", "earliestOffset", "earliestLocalOffset", "latestTieredOffset", "localBytes", "remoteBytes", "messagesPerSecond", "partitionDetail", "observedAt")
       VALUES ($1, $2, 1, 100000, 0, 0, NULL, 24576, 0, 1234.5, $3::jsonb, now())`,
      [topic, productId, JSON.stringify([{ partition: 0, endOffset: "100000", earliestOffset: "0", earliestLocalOffset: "0", latestTieredOffset: null, localBytes: "24576", remoteBytes: "0" }])],
    );
    await db.query(
      `INSERT INTO "TopicObservationSample" (topic, bucket, "endOffset", "earliestOffset", "localBytes", "remoteBytes", "messagesPerSecond")
       SELECT $1, date_trunc('minute', now()) - make_interval(mins => m), 100000 - m * 1000, 0, 24576, 0, 1000 + m * 37 FROM generate_series(0, 9) AS m`,
      [topic],
    );
    await db.query(
      `INSERT INTO "ConsumerGroupObservation" ("groupId", topic, "subscriptionId", "serviceAccountId", state, members, "totalLag", "timeLagMs", "partitionDetail", "observedAt")
       SELECT $1, $2, s.id, s."serviceAccountId", 'Stable', 1, 4200, 5000, $4::jsonb, now() FROM "Subscription" s WHERE s.id = $3`,
      [groupId, topic, subscriptionId, JSON.stringify([{ partition: 0, committedOffset: "95800", endOffset: "100000", lag: "4200" }])],
    );
    await db.query(
      `INSERT INTO "ConsumerGroupObservationSample" ("groupId", topic, bucket, "totalLag", "timeLagMs")
       SELECT $1, $2, date_trunc('minute', now()) - make_interval(mins => m), 4200 + m * 900, 5000 FROM generate_series(0, 9) AS m`,
      [groupId, topic],
    );
  });
  try {
    const page = await as(browser, "ordersOwner");
    for (const viewport of [{ width: 1280, height: 800 }, { width: 375, height: 740 }]) {
      await page.setViewportSize(viewport);
      await page.goto(`/products/${productId}#live`);
      // A chart is drawn once it comes near the viewport: bring its card there first.
      await page.getByTestId("throughput-now").scrollIntoViewIfNeeded();
      const throughput = page.getByTestId("throughput-chart");
      await throughput.scrollIntoViewIfNeeded();
      await expect(throughput.locator(".recharts-bar-rectangle")).toHaveCount(10);
      const bars = await chartGeometry(page, "throughput-chart", ".recharts-bar-rectangle path");
      expectInside(`throughput bar at ${viewport.width} px`, bars.shapes, bars.plot, bars.yLabels, bars.chart, bars.viewport);

      await page.getByTestId("consumer-groups").scrollIntoViewIfNeeded();
      const lag = page.getByTestId("lag-chart");
      await lag.scrollIntoViewIfNeeded();
      await expect(lag.locator(".recharts-line-curve")).toHaveCount(1);
      const lines = await chartGeometry(page, "lag-chart", ".recharts-line-curve");
      expectInside(`lag line at ${viewport.width} px`, lines.shapes, lines.plot, lines.yLabels, lines.chart, lines.viewport);
    }
    await page.context().close();
  } finally {
    await withDb(async (db) => {
      await db.query(`DELETE FROM "TopicObservation" WHERE topic = $1`, [topic]);
      await db.query(`DELETE FROM "TopicObservationSample" WHERE topic = $1`, [topic]);
      await db.query(`DELETE FROM "ConsumerGroupObservation" WHERE "groupId" = $1`, [groupId]);
      await db.query(`DELETE FROM "ConsumerGroupObservationSample" WHERE "groupId" = $1`, [groupId]);
    });
  }
});
