import { expect, test as setup } from "@playwright/test";
import { DEMO_PASSWORD, ROLES, storageFor, type Role } from "./roles";

// Signs in once per role through the real sign-in page and stores the session.
for (const role of Object.keys(ROLES) as Role[]) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await page.goto("/signin");
    await page.getByLabel("E-mail").fill(ROLES[role]);
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("current-user")).toContainText(ROLES[role]);
    await page.context().storageState({ path: storageFor(role) });
  });
}
