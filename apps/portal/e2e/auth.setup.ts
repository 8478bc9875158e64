import { expect, test as setup } from "@playwright/test";
import { DEMO_PASSWORD, ROLES, storageFor, type Role } from "./roles";

// Signs in once per role through the real sign-in page and stores the session.
for (const role of Object.keys(ROLES) as Role[]) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await page.goto("/signin");
    await page.getByLabel("E-mail").fill(ROLES[role]);
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // The first sign-in meets a portal that has just started: its first pages are slow to answer while the other
    // e2e runs start beside it (27 s once at load ~30), so more than the usual 15 s — a wait, not a speed target.
    await expect(page.getByTestId("current-user")).toContainText(ROLES[role], { timeout: 90_000 });
    await page.context().storageState({ path: storageFor(role) });
  });
}
