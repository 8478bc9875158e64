import { readFileSync } from "node:fs";
import { expect, type Page } from "@playwright/test";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Showback and chargeback as people see it, on the demo seed's usage history
 * (prisma/demo-usage.ts: the 60 days before the first start): each domain's
 * owner sees its own costs, the share of Order Events charged to payments, a
 * chart over months, CSV and JSON exports whose figures add up; the admin sees
 * every domain and the platform total; the product page shows the product's
 * cost and its trend.
 */

const now = new Date();
const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
/** "EUR 1,234.57" → 1234.57 */
const money = (text: string | null) => Number((text ?? "").replace(/[^\d.]/g, ""));

async function openCosts(page: Page) {
  await page.goto("/");
  await page.getByRole("navigation").getByRole("link", { name: "Costs" }).click();
  await expect(page.getByRole("heading", { name: "Costs", level: 1 })).toBeVisible();
  await page.getByLabel("Month").fill(lastMonth);
}

test("a consuming domain sees its costs and what it is charged for the products it reads; exports add up", async ({ browser }) => {
  const payer = await as(browser, "paymentsOwner");
  await openCosts(payer);
  const payments = payer.getByTestId("domain-costs-payments");
  await expect(payments.getByTestId("product-cost-row").filter({ hasText: "Payments Captured" })).toContainText("payments (producer): EUR");
  await expect(payments.getByTestId("charges")).toContainText(/Order Events \(orders\): EUR [\d,]+\.\d\d for [\d.]+ GB read/);
  // Only its own domain.
  await expect(payer.getByTestId("domain-costs-orders")).toHaveCount(0);
  await expect(payer.getByText("Your domains' total")).toBeVisible();
  const total = money(await payer.getByTestId("costs-total").textContent());
  expect(total).toBeGreaterThan(0);
  expect(money(await payments.getByTestId("domain-total").textContent())).toBe(total);

  // The chart over months is drawn only when asked for.
  await expect(payer.getByTestId("cost-chart")).toHaveCount(0);
  await payer.getByRole("button", { name: "Chart over months" }).click();
  await expect(payer.getByTestId("cost-chart")).toBeVisible();
  await expect(payer.getByRole("img", { name: new RegExp(`Cost per month by domain, .* to ${lastMonth}`) })).toBeVisible();

  const [csv] = await Promise.all([payer.waitForEvent("download"), payer.getByRole("button", { name: "Export CSV" }).click()]);
  expect(csv.suggestedFilename()).toBe(`kappa-costs-${lastMonth}.csv`);
  const lines = readFileSync(await csv.path(), "utf8").trimEnd().split("\r\n");
  expect(lines[0]).toMatch(/^month,currency,domain,kind,product,/);
  const amount = (l: string) => Number(l.split(",").pop());
  const domainTotals = lines.filter((l) => l.split(",")[3] === "domain_total").map(amount);
  const totalLine = lines.find((l) => l.split(",")[3] === "total");
  expect(domainTotals).toHaveLength(1);
  expect(domainTotals[0]).toBeCloseTo(amount(totalLine ?? ""), 6);
  // Its total is what it bears for its own products plus what it is charged for Order Events.
  const kind = (k: string) => lines.filter((l) => l.split(",")[3] === k);
  expect(kind("charged_in").map((l) => l.split(",").slice(4, 8).join(","))).toEqual(["Order Events,orders.order-events.v1,orders,payments"]);
  expect([...kind("producer_share"), ...kind("charged_in")].map(amount).reduce((a, b) => a + b, 0)).toBeCloseTo(domainTotals[0] ?? -1, 5);

  const [json] = await Promise.all([payer.waitForEvent("download"), payer.getByRole("button", { name: "Export JSON" }).click()]);
  const exported = JSON.parse(readFileSync(await json.path(), "utf8")) as { month: string; scope: string; platformTotal: string | null; domains: { slug: string }[] };
  expect(exported).toMatchObject({ month: lastMonth, scope: "domains", platformTotal: null, domains: [{ slug: "payments" }] });

  // A month that is not YYYY-MM is refused naming the field.
  const bad = await payer.request.get("/api/v1/costs?month=2026-13");
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { error: { fields: Record<string, string[]> } }).error.fields.month?.[0]).toContain("YYYY-MM");
  await payer.context().close();
});

test("the producing domain sees each product's cost split to its consumers; the product page shows its cost and trend; admins see every domain", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  await openCosts(owner);
  const orders = owner.getByTestId("domain-costs-orders");
  const events = orders.getByTestId("product-cost-row").filter({ hasText: "Order Events" });
  // Payments is Order Events' only reader: it carries the whole cost under the default rule (consumers).
  await expect(events).toContainText(/payments: EUR [\d,]+\.\d\d \([\d.]+ GB read\)/);
  const eventsCost = (await events.locator("td").nth(4).textContent()) ?? "";
  expect(money(eventsCost)).toBeGreaterThan(0);
  await expect(events).toContainText(`payments: ${eventsCost}`);
  await expect(orders.getByTestId("product-cost-row").filter({ hasText: "Order Status" })).toContainText("orders (producer): EUR");

  await events.getByRole("link", { name: "Order Events" }).click();
  const card = owner.getByTestId("product-cost");
  await expect(card).toContainText("This month");
  await expect(card.getByRole("list", { name: "Cost per month" })).toContainText(`${lastMonth}: ${eventsCost}`);
  await card.getByRole("button", { name: "Trend chart" }).click();
  await expect(card.getByTestId("cost-chart")).toBeVisible();
  await owner.context().close();

  const admin = await as(browser, "admin");
  await openCosts(admin);
  await expect(admin.getByText("Platform total")).toBeVisible();
  await expect(admin.getByTestId("domain-costs-orders")).toBeVisible();
  await expect(admin.getByTestId("domain-costs-payments")).toBeVisible();
  const domainTotals = await admin.getByTestId("domain-total").allTextContents();
  const sum = domainTotals.map(money).reduce((a, b) => a + b, 0);
  // Shown rounded to cents, so the sum of the rounded figures is within a cent per domain.
  expect(Math.abs(sum - money(await admin.getByTestId("costs-total").textContent()))).toBeLessThanOrEqual(0.01 * domainTotals.length);
  await admin.context().close();
});
