import path from "node:path";
import { expect, type Browser, type Page } from "@playwright/test";

/** Demo accounts seeded by prisma/seed.ts (password "kappa-demo"). */
export const ROLES = {
  ordersOwner: "owner@orders.example",
  paymentsOwner: "owner@payments.example",
  ordersMember: "member@orders.example",
  reviewer: "reviewer@governance.example",
  admin: "admin@kappa.example",
} as const;
export type Role = keyof typeof ROLES;

export const DEMO_PASSWORD = "kappa-demo";

/** Per portal port, so that two e2e runs on one machine (e.g. with and without the worker) never share sessions. */
export function storageFor(role: Role): string {
  return path.join(import.meta.dirname, ".auth", process.env.KAPPA_E2E_PORT ?? "3100", `${role}.json`);
}

/** A page signed in as `role` (its own browser context, from the storage state auth.setup.ts saved). */
export async function as(browser: Browser, role: Role): Promise<Page> {
  const context = await browser.newContext({ storageState: storageFor(role) });
  return context.newPage();
}

/**
 * Opens the user menu at the end of the navigation bar (name, role, theme,
 * Sign out). Clicks again until it reports itself open: a click before the
 * page has hydrated does nothing.
 */
export async function openUserMenu(page: Page): Promise<void> {
  const button = page.getByRole("button", { name: /^Account menu/ });
  await expect(async () => {
    if ((await button.getAttribute("aria-expanded")) !== "true") await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true", { timeout: 1_000 });
  }).toPass();
}
