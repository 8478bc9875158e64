import { expect } from "@playwright/test";
import { test } from "./fixtures";
import { storageFor } from "./roles";

/* Access recertification in the browser: the policy's schedule, unused grants flagged, keep with a reason (audited). */
test.use({ storageState: storageFor("ordersOwner") });

test("an owner recertifies a subscription of their product: schedule shown, unused flagged, keep needs a reason", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Recertify" }).click();
  await expect(page.getByTestId("recert-schedule")).toContainText("90 for CONFIDENTIAL");
  const item = page.locator('[data-testid="recert-item"][data-account="payments-reconciliation"]').filter({ hasText: "Order Events" }).first();
  await expect(item).toContainText("unused");
  await expect(item).toContainText("last certified never");
  await item.getByRole("button", { name: /^Keep access of payments-reconciliation/ }).click();
  await expect(item.getByRole("alert")).toContainText("at least 5 characters");
  await item.getByLabel("Reason").fill("Payments reconciliation still runs daily");
  await item.getByRole("button", { name: /^Keep access of payments-reconciliation/ }).click();
  await expect(item).not.toContainText("last certified never");
  const audit = await page.request.get("/api/v1/audit-events?action=subscription.recertified&entityType=Subscription");
  // Owners read a product's history, not the whole log; governance sees the event (checked via the catalog test).
  expect([200, 403]).toContain(audit.status());
});
