import { expect, type Browser, type Page } from "@playwright/test";
import { test } from "./fixtures";
import { startIdentityProvider, type TestIdentityProvider } from "./oidc-provider";
import { storageFor } from "./roles";

/*
 * Single sign-on end to end in Chromium: a real OpenID provider on a loopback
 * port, the admin's group mapping, and one person whose groups change at the
 * provider between two sign-ins — the portal follows at the second sign-in.
 */
const run = Date.now().toString(36);
const email = `dana.${run}@corp.example`;
const groups = { analysts: `orders-analysts-${run}`, leads: `payments-leads-${run}`, governance: `governance-${run}` };

let idp: TestIdentityProvider;

test.beforeAll(async ({ baseURL }) => {
  idp = await startIdentityProvider(baseURL ?? "", process.env.KAPPA_E2E_OIDC_SECRET ?? "");
});
test.afterAll(async () => idp?.close());

async function signInWithSso(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/signin");
  await page.getByRole("button", { name: "Sign in with Kappa Test IdP" }).click();
  // The provider's own login page, on its own origin.
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.getByPlaceholder("Enter any login").fill(email);
  await page.getByPlaceholder("and password").fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  const consent = page.getByRole("button", { name: "Continue" });
  await page.waitForURL((url) => url.origin !== idp.issuer || url.pathname.includes("/interaction/"));
  if (new URL(page.url()).origin === idp.issuer) await consent.click();
  await expect(page.getByTestId("current-user")).toContainText(email);
  return page;
}

async function addMapping(admin: Page, group: string, target: { domain: string; role: "Member" | "Owner" } | { global: "Governance reviewer" | "Platform admin" }) {
  await admin.getByLabel("Group", { exact: true }).fill(group);
  if ("domain" in target) {
    await admin.getByLabel("A role in a domain").check();
    await admin.getByLabel("Domain", { exact: true }).selectOption({ label: target.domain });
    await admin.getByLabel("Domain role").selectOption({ label: target.role });
  } else {
    await admin.getByLabel("A global role").check();
    await admin.getByLabel("Global role", { exact: true }).selectOption({ label: target.global });
  }
  await admin.getByRole("button", { name: "Add mapping" }).click();
  await expect(admin.getByTestId("sso-mapping").filter({ hasText: group })).toBeVisible();
  // The form is ready for the next group once the added one is cleared from it.
  await expect(admin.getByLabel("Group", { exact: true })).toHaveValue("");
}

test("SSO sign-in maps provider groups to domains and roles, and follows a change of groups at the next sign-in", async ({ browser }) => {
  const admin = await (await browser.newContext({ storageState: storageFor("admin") })).newPage();
  await admin.goto("/admin/sso");
  await expect(admin.getByTestId("oidc-status")).toHaveText("enabled");
  await expect(admin.getByTestId("oidc-groups-claim")).toHaveText("groups");
  await addMapping(admin, groups.analysts, { domain: "Orders (orders)", role: "Member" });
  await addMapping(admin, groups.leads, { domain: "Payments (payments)", role: "Owner" });
  await addMapping(admin, groups.governance, { global: "Governance reviewer" });

  // First sign-in: a member of orders.
  idp.setAccount(email, { name: "Dana Analyst", groups: [groups.analysts, "unmapped-group"] });
  const first = await signInWithSso(browser);
  await expect(first.getByTestId("current-role")).toHaveText("Member · orders");
  const me1 = await (await first.request.get("/api/v1/me")).json();
  expect(me1).toMatchObject({ email, globalRole: "USER", memberships: [{ domainSlug: "orders", role: "MEMBER" }] });

  // The directory moves Dana: payments lead and governance, no longer an orders analyst.
  idp.setAccount(email, { name: "Dana Lead", groups: [groups.leads, groups.governance] });
  // The running session keeps its roles until Dana signs in again.
  await first.reload();
  await expect(first.getByTestId("current-role")).toHaveText("Member · orders");

  const second = await signInWithSso(browser);
  await expect(second.getByTestId("current-role")).toHaveText("Governance reviewer");
  const me2 = await (await second.request.get("/api/v1/me")).json();
  expect(me2).toMatchObject({ email, name: "Dana Lead", globalRole: "GOVERNANCE", memberships: [{ domainSlug: "payments", role: "OWNER" }] });
  await second.goto("/my-domain");
  await expect(second.getByRole("heading", { level: 2, name: /Payments/ })).toBeVisible();
  await expect(second.getByRole("heading", { level: 2, name: /Orders/ })).toHaveCount(0);

  // The admin sees where the roles came from, and the sync in the audit log (a fresh page: the first one sat idle for long).
  await admin.close();
  const adminView = await (await browser.newContext({ storageState: storageFor("admin") })).newPage();
  await adminView.goto("/admin/users");
  await adminView.getByLabel("Find people").fill(email);
  const row = adminView.getByTestId("user-row").filter({ hasText: email });
  await expect(row).toContainText("from SSO");
  await expect(row).toContainText("payments owner (SSO)");
  await adminView.goto(`/audit?action=sso.accessSynced&actor=${encodeURIComponent(email)}`);
  const synced = adminView.getByTestId("audit-row");
  await expect(synced).toHaveCount(2);
  await expect(synced.first()).toContainText("removed: orders:MEMBER");
  await expect(synced.first()).toContainText("added: payments:OWNER");
  await expect(synced.first()).toContainText("globalRole: USER→GOVERNANCE");
});
