import { expect, test } from "@playwright/test";
import { storageFor } from "./roles";

/* The catalog page: ranked search, typos answered with "did you mean", and a lean bundle. */
test.use({ storageState: storageFor("paymentsOwner") });

test("a typo finds the product by its nearest name and the page offers it as “did you mean”", async ({ page }) => {
  await page.goto("/");
  await page.getByLabel("Search", { exact: true }).fill("refnds");
  const offer = page.getByTestId("did-you-mean");
  await expect(offer).toContainText("No product matches “refnds”. Did you mean");
  await expect(page.getByRole("heading", { name: /with a similar name$/ })).toBeVisible();
  const results = page.getByRole("region", { name: /with a similar name$/ });
  await expect(results.getByRole("link", { name: "Refunds", exact: true })).toBeVisible();

  await offer.getByRole("button", { name: "Refunds", exact: true }).click();
  await expect(page).toHaveURL(/[?&]q=Refunds\b/);
  await expect(offer).toBeHidden();
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue("Refunds");
  await expect(page.getByRole("heading", { name: /^\d[\d,]*\+? products?$/ })).toBeVisible();
  await expect(page.getByRole("link", { name: "Refunds", exact: true })).toBeVisible();
  // With words, the catalog ranks by relevance unless the user picks another order.
  await expect(page.getByLabel("Sort by")).toHaveValue("relevance");
});

test("the catalog page's scripts carry no validation library", async ({ page }) => {
  const scripts: Promise<{ url: string; body: string }>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") scripts.push(response.text().then((body) => ({ url: response.url(), body })));
  });
  await page.goto("/");
  await page.getByLabel("Search", { exact: true }).fill("orders");
  await expect(page.getByRole("heading", { name: /^\d[\d,]*\+? products?$/ })).toBeVisible();
  await page.waitForLoadState("networkidle");
  const loaded = await Promise.all(scripts);
  expect(loaded.length).toBeGreaterThan(0);
  // zod's error class and Ajv's schema-registry message: present in any build that bundles them. next-auth's
  // client loads only when the user signs out (its error code names it).
  const offenders = loaded.filter((s) => s.body.includes('"$ZodError"') || s.body.includes("schema with key or id") || s.body.includes("INVALID_CALLBACK_URL_ERROR")).map((s) => s.url);
  expect(offenders).toEqual([]);
});

test("the first page of results comes with the page itself (streamed), without a second request", async ({ page }) => {
  const html = await (await page.request.get("/?q=refunds")).text();
  expect(html).toContain("payments.refunds.v1");
  const asked: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/v1/products") asked.push(request.url());
  });
  await page.goto("/?q=refunds");
  await expect(page.getByRole("link", { name: "Refunds", exact: true })).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(asked).toEqual([]);
});

test("the bell's first request and the links' prefetches wait until the page has loaded; then the bell answers", async ({ page }) => {
  const bellAsked = page.waitForRequest((r) => new URL(r.url()).pathname === "/api/v1/notifications");
  await page.goto("/");
  await bellAsked;
  // Every prefetch (?_rsc=) and the bell's request start after the load event, not while the page hydrates.
  const timing = () =>
    page.evaluate(() => {
      const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const deferred = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/notifications") || e.name.includes("_rsc="));
      return { load: navigation.loadEventEnd, deferred: deferred.map((e) => ({ url: e.name, start: e.startTime })) };
    });
  // The product links in view are prefetched once the page is idle (next/link's own prefetch, only later).
  await expect.poll(async () => (await timing()).deferred.filter((e) => e.url.includes("_rsc=")).length).toBeGreaterThan(0);
  const { load, deferred } = await timing();
  expect(load).toBeGreaterThan(0);
  for (const e of deferred) expect(e.start, e.url).toBeGreaterThanOrEqual(load);

  const bell = page.getByTestId("notification-bell");
  await bell.click();
  await expect(page.getByRole("region", { name: "Latest notifications" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Latest notifications" }).getByRole("link", { name: "All notifications" })).toBeVisible();
});

test("sign out (next-auth's client loads on the click) leads to the sign-in page", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: /^\d[\d,]*\+? products?$/ })).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/signin/);
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
  await page.goto("/");
  await page.waitForURL(/\/signin/);
});
