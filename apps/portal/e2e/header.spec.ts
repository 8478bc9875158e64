import { expect } from "@playwright/test";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as, openUserMenu, ROLES } from "./roles";

/*
 * The navigation bar (issue 31, point 9): navigation first, then the user
 * menu at the end with name, role, theme and Sign out; on a phone the open
 * menu fits the screen; "Last sign-in" shows when someone last signed in.
 */

test("the user menu comes after the navigation and holds name, role, theme and Sign out", async ({ browser }) => {
  const page = await as(browser, "ordersOwner");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  const menuButton = page.getByRole("button", { name: /^Account menu/ });
  await expect(nav.getByRole("link", { name: "Catalog" })).toBeVisible();
  // The menu is the bar's last control: right of every navigation link.
  const buttonBox = (await menuButton.boundingBox())!;
  for (const link of await nav.getByRole("link").all()) {
    const box = (await link.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(buttonBox.x);
  }
  // Closed, it shows no Sign out; open, everything the person needs.
  await expect(page.getByRole("button", { name: "Sign out" })).toBeHidden();
  await openUserMenu(page);
  const menu = page.getByRole("region", { name: "Account" });
  await expect(menu.getByTestId("current-user")).toContainText(ROLES.ordersOwner);
  await expect(menu.getByTestId("current-role")).toHaveText("Owner · orders");
  await expect(menu.getByTestId("theme-select")).toBeVisible();
  await expect(menu.getByRole("button", { name: "Sign out" })).toBeVisible();
  // Escape closes it.
  await page.keyboard.press("Escape");
  await expect(menu.getByRole("button", { name: "Sign out" })).toBeHidden();
  await page.context().close();
});

test("on a phone the open user menu shows Sign out whole, inside the screen", async ({ browser }) => {
  const page = await as(browser, "admin");
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto("/");
  await openUserMenu(page);
  const signOut = page.getByRole("button", { name: "Sign out" });
  await expect(signOut).toBeVisible();
  await expect(signOut).toBeInViewport({ ratio: 1 });
  const box = (await signOut.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(375);
  const panel = (await page.getByRole("region", { name: "Account" }).boundingBox())!;
  expect(panel.x).toBeGreaterThanOrEqual(0);
  expect(panel.x + panel.width).toBeLessThanOrEqual(375);
  // Nothing in the bar is wider than the phone's screen.
  expect(await page.locator("header").first().evaluate((e) => e.scrollWidth)).toBeLessThanOrEqual(375);
  // The navigation folds under "Menu" and opens too.
  await page.getByRole("button", { name: "Menu", exact: true }).click();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toBeInViewport();
  await page.context().close();
});

test("Last sign-in shows a time for people who sign in with a password", async ({ browser }) => {
  // The demo owner signed in with a password in the setup project (auth.setup.ts).
  const { domainId } = await withDb((db) => one<{ domainId: string }>(db, `SELECT id AS "domainId" FROM "Domain" WHERE slug = 'orders'`));
  const admin = await as(browser, "admin");
  await admin.goto(`/admin/domains/${domainId}`);
  const row = admin.getByRole("row").filter({ hasText: ROLES.ordersOwner });
  await expect(row.getByTestId("last-sign-in")).toContainText(/\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC/);
  await admin.context().close();
});
