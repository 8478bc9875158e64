import { expect, test as setup } from "@playwright/test";
import { DEMO_PASSWORD, ROLES, storageFor, type Role } from "./roles";

// Signs in once per role through the real sign-in page and stores the session. The five sign-ins run side by side,
// each in its own browser context (five in one go stay far below the per-address sign-in throttle's 20).
setup("sign in as every role", async ({ browser }) => {
  await Promise.all(
    (Object.keys(ROLES) as Role[]).map(async (role) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto("/signin");
        await page.getByLabel("E-mail").fill(ROLES[role]);
        await page.getByLabel("Password").fill(DEMO_PASSWORD);
        await page.getByRole("button", { name: "Sign in", exact: true }).click();
        await expect(page.getByTestId("current-user"), `signed in as ${role}`).toContainText(ROLES[role]);
        await context.storageState({ path: storageFor(role) });
      } finally {
        await context.close();
      }
    }),
  );
});
