import { expect } from "@playwright/test";
import { test } from "./fixtures";
import { DEMO_PASSWORD, ROLES, storageFor } from "./roles";

test("a wrong password shows an error and no session is created", async ({ page }) => {
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(ROLES.ordersOwner);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Wrong e-mail or password.");
  const me = await page.request.get("/api/v1/me");
  expect(me.status()).toBe(401);
  await page.goto("/my-domain");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fmy-domain/);
});

test("the sign-in page's scripts carry no TanStack Query (its provider is in the signed-in layout)", async ({ page }) => {
  const scripts: Promise<{ url: string; body: string }>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") scripts.push(response.text().then((body) => ({ url: response.url(), body })));
  });
  await page.goto("/signin");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  const loaded = await Promise.all(scripts);
  expect(loaded.length).toBeGreaterThan(0);
  // useQueryClient's error message: in any build that bundles TanStack Query.
  expect(loaded.filter((s) => s.body.includes("No QueryClient set")).map((s) => s.url)).toEqual([]);
});

test("scripts sign in with next-auth's CSRF + credentials flow", async ({ request }) => {
  const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const callback = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: ROLES.paymentsOwner, password: DEMO_PASSWORD, json: "true" },
  });
  expect(callback.ok()).toBe(true);
  const me = await request.get("/api/v1/me");
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({ email: ROLES.paymentsOwner, memberships: [{ domainSlug: "payments", role: "OWNER" }] });
});

test.describe("signed in", () => {
  test.use({ storageState: storageFor("reviewer") });

  test("the sign-in page sends a signed-in user on, and the nav shows who and which role", async ({ page }) => {
    await page.goto("/signin?callbackUrl=%2Freview");
    await expect(page).toHaveURL(/\/review$/);
    await expect(page.getByTestId("current-user")).toContainText("reviewer@governance.example");
    await expect(page.getByTestId("current-role")).toHaveText("Governance reviewer");
  });
});
