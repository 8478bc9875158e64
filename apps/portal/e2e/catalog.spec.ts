import { expect, type Page } from "@playwright/test";
import { createPasswordUser } from "./db";
import { test } from "./fixtures";
import { openUserMenu, storageFor } from "./roles";

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

declare global {
  interface Window {
    __releaseIdle?: () => void;
  }
}

/*
 * Holds the page's idle moment: requestIdleCallback callbacks wait until the test calls window.__releaseIdle().
 * (components/page-idle.ts waits for load, then one idle callback.)
 */
async function holdIdle(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const held: (() => void)[] = [];
    window.requestIdleCallback = (cb) => held.push(() => cb({ didTimeout: false, timeRemaining: () => 50 }));
    window.__releaseIdle = () => held.splice(0).forEach((cb) => cb());
  });
}

/** The page has hydrated: the user menu (a client component beside the bell) opens and its theme choice reacts. */
async function hydrated(page: Page): Promise<void> {
  await openUserMenu(page);
  await page.getByTestId("theme-select").selectOption("dark");
  await expect(page.locator("html")).toHaveClass(/dark/);
}

test("the bell asks for news and links prefetch only once the page is idle; then the bell answers", async ({ page }) => {
  await holdIdle(page);
  const asked: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/api/v1/notifications" || url.searchParams.has("_rsc")) asked.push(url.pathname + url.search);
  });
  await page.goto("/");
  await expect(page.getByRole("heading", { name: /^\d[\d,]*\+? products?$/ })).toBeVisible();
  await hydrated(page);
  await page.waitForLoadState("load");
  expect(asked).toEqual([]);

  const bellAsked = page.waitForRequest((r) => new URL(r.url()).pathname === "/api/v1/notifications");
  await page.evaluate(() => window.__releaseIdle?.());
  await bellAsked;
  // The product links in view are prefetched now (next/link's own prefetch, only later).
  await expect.poll(() => asked.filter((u) => u.includes("_rsc=")).length).toBeGreaterThan(0);

  await page.getByTestId("notification-bell").click();
  const panel = page.getByRole("region", { name: "Latest notifications" });
  await expect(panel).toBeVisible();
  await expect(panel.getByRole("link", { name: "All notifications" })).toBeVisible();
});

test("opening the bell before the page is idle asks for news at once", async ({ page }) => {
  await holdIdle(page);
  await page.goto("/");
  await hydrated(page);
  const bellAsked = page.waitForRequest((r) => new URL(r.url()).pathname === "/api/v1/notifications");
  await page.getByTestId("notification-bell").click();
  await bellAsked;
  await expect(page.getByRole("region", { name: "Latest notifications" })).toBeVisible();
});

test("sign out (next-auth's client loads on the click) leads to the sign-in page", async ({ browser }) => {
  // Its own person: signing out ends every session of the one who signs out, the stored demo sessions included.
  const email = `signout-${Date.now()}@orders.example`;
  await createPasswordUser(email, "sign-out-password");
  const page = await (await browser.newContext({ storageState: { cookies: [], origins: [] } })).newPage();
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill("sign-out-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("current-user")).toContainText(email);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: /^\d[\d,]*\+? products?$/ })).toBeVisible();
  await openUserMenu(page);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/signin/);
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
  await page.goto("/");
  await page.waitForURL(/\/signin/);
  await page.context().close();
});
