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
  // zod's error class and Ajv's schema-registry message: present in any build that bundles them.
  const offenders = loaded.filter((s) => s.body.includes('"$ZodError"') || s.body.includes("schema with key or id")).map((s) => s.url);
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
