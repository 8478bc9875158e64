import { expect } from "@playwright/test";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as, storageFor } from "./roles";

/*
 * Issue 13's admin journeys: domains, members and roles, global roles — each
 * change in the audit log with the client's address and browser — the audit
 * log's filters (applied as you type) and exports, and an owner adding
 * partitions to an ACTIVE product through review.
 */
const run = Date.now().toString(36);

test.describe.serial("admin management", () => {
  const slug = `fleet-${run}`;
  const newcomer = `newcomer.${run}@kappa.example`;

  test("an admin creates, renames, archives and restores a domain and manages its members", async ({ browser }) => {
    const admin = await as(browser, "admin");
    await admin.goto("/");
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await expect(admin).toHaveURL(/\/admin\/domains$/);

    await admin.getByLabel("Name", { exact: true }).fill(`Fleet ${run}`);
    await admin.getByLabel("Slug").fill(slug);
    await admin.getByRole("button", { name: "Create domain" }).click();
    const row = admin.locator(`[data-testid="domain-row"][data-slug="${slug}"]`);
    await expect(row).toContainText(`Fleet ${run}`);

    // A bad slug is refused with the reason, and nothing is created.
    await admin.getByLabel("Name", { exact: true }).fill("Kappa Internal");
    await admin.getByLabel("Slug").fill("kappa-internal");
    await admin.getByRole("button", { name: "Create domain" }).click();
    await expect(admin.getByText('Slugs starting with "kappa" are reserved for the platform.')).toBeVisible();

    await row.getByRole("button", { name: `Rename Fleet ${run}` }).click();
    await row.getByLabel(`New name for Fleet ${run}`).fill(`Fleet & Depots ${run}`);
    await row.getByRole("button", { name: "Save" }).click();
    await expect(row).toContainText(`Fleet & Depots ${run}`);

    await row.getByRole("link", { name: /Members/ }).click();
    await expect(admin.getByTestId("domain-name")).toHaveText(`Fleet & Depots ${run}`);
    await admin.getByLabel("E-mail").fill(newcomer);
    await admin.getByLabel("Role", { exact: true }).selectOption("OWNER");
    await admin.getByRole("button", { name: "Add member" }).click();
    const member = admin.locator(`[data-testid="member-row"][data-email="${newcomer}"]`);
    await expect(member).toContainText("manual");
    // The last owner cannot be demoted: the refusal says why.
    await member.getByLabel(`Role of ${newcomer}`).selectOption("MEMBER");
    await expect(member.getByRole("alert")).toContainText("would have no owner left");

    await admin.goto("/admin/domains");
    await row.getByRole("button", { name: /Archive/ }).click();
    await expect(row).toContainText("archived");
    await row.getByRole("button", { name: /Restore/ }).click();
    await expect(row).toContainText("active");
  });

  test("an admin changes another person's global role but not their own", async ({ browser }) => {
    const admin = await as(browser, "admin");
    await admin.goto("/admin/users");
    await admin.getByLabel("Find people").fill(newcomer);
    const row = admin.locator(`[data-testid="user-row"][data-email="${newcomer}"]`);
    await expect(row).toBeVisible();
    await expect(admin.getByTestId("user-row")).toHaveCount(1);
    await row.getByLabel(`Global role of ${newcomer}`).selectOption("GOVERNANCE");
    await expect(row.getByLabel(`Global role of ${newcomer}`)).toHaveValue("GOVERNANCE");
    await admin.getByLabel("Find people").fill("admin@kappa.example");
    await expect(admin.getByLabel("Global role of admin@kappa.example")).toBeDisabled();
  });

  test("every admin change is in the audit log with the client address and browser; filters apply as you type; exports download", async ({ browser }) => {
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/audit");
    await reviewer.getByLabel("Action").fill("domain.");
    await reviewer.getByLabel("Actor e-mail").fill("admin@kappa");
    // No button pressed: the table follows the typing.
    const rows = reviewer.getByTestId("audit-row").filter({ hasText: slug });
    await expect(rows).toHaveCount(4); // created, renamed, archived, restored
    await expect(reviewer).toHaveURL(/action=domain\./);
    const renamed = reviewer.getByTestId("audit-row").filter({ hasText: "domain.renamed" }).filter({ hasText: `Fleet & Depots ${run}` });
    await expect(renamed.getByTestId("audit-details")).toContainText(`from: Fleet ${run}`);
    await expect(renamed.getByTestId("audit-client")).toContainText(/(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1) · (Headless)?Chrome \d+ on \w+/);
    // The details column is wide enough to read: words, not letters, per line.
    const box = await renamed.getByTestId("audit-details").boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(200);

    await reviewer.getByLabel("Action").fill("member.");
    await expect(reviewer.getByTestId("audit-row").filter({ hasText: newcomer })).toHaveCount(1);
    await reviewer.getByLabel("Action").fill("globalRoleChanged");
    await reviewer.getByLabel("Actor e-mail").fill("");
    await expect(reviewer.getByTestId("audit-row").filter({ hasText: newcomer })).toContainText("to: GOVERNANCE");

    // Date range: nothing today is "before yesterday".
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await reviewer.getByLabel("Action").fill("domain.");
    await reviewer.getByLabel("To", { exact: true }).fill(yesterday);
    await expect(reviewer.getByText("No audit events match")).toBeVisible();
    await reviewer.getByLabel("To", { exact: true }).fill("");

    const download = reviewer.waitForEvent("download");
    await reviewer.getByRole("link", { name: "Export CSV" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^kappa-audit-.*\.csv$/);
    const csv = await reviewer.request.get(`/api/v1/audit-events/export?format=csv&action=domain.&entityType=Domain`);
    expect(csv.headers()["content-type"]).toContain("text/csv");
    const text = await csv.text();
    expect(text.split("\r\n")[0]).toBe("id,at,actorEmail,action,entityType,entityId,clientAddress,userAgent,data");
    expect(text).toContain(`"domain.renamed"`);
    const json = (await (await reviewer.request.get(`/api/v1/audit-events/export?format=json&action=domain.created`)).json()) as { action: string; data: { slug?: string }; userAgent: string | null }[];
    const created = json.find((e) => e.data.slug === slug);
    expect(created).toMatchObject({ action: "domain.created" });
    expect(created?.userAgent).toContain("Chrome");

    // Owners cannot export the whole log.
    const owner = await as(browser, "ordersOwner");
    expect((await owner.request.get("/api/v1/audit-events/export?format=csv")).status()).toBe(403);
  });
});

test("an owner adds partitions to an ACTIVE product: the page warns about keyed ordering, governance reviews, the worker's step is queued", async ({ browser }) => {
  const name = `Partitioned Events ${run}`;
  const owner = await as(browser, "ordersOwner");
  await owner.goto("/products/new");
  await owner.getByLabel("Name").fill(name);
  await owner.getByLabel("Description").fill("Events to test adding partitions to a live product.");
  await owner.getByLabel("Partitions").fill("3");
  await owner.getByLabel("Definition").fill(JSON.stringify({ type: "record", name: "P", fields: [{ name: "id", type: "string" }] }));
  await owner.getByRole("button", { name: "Register product" }).click();
  await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname) && url.pathname !== "/products/new");
  const productId = new URL(owner.url()).pathname.split("/").pop() ?? "";
  await owner.getByRole("button", { name: "Submit for review" }).click();
  await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/products/${productId}`);
  await reviewer.getByRole("button", { name: "Approve" }).click();
  await expect(reviewer.getByTestId("product-status")).toHaveText("APPROVED");
  // Standing in for the worker (this project runs without it): the plan is done, the product live.
  await withDb(async (db) => {
    await db.query(`UPDATE "ProvisioningTask" SET status = 'DONE', "completedAt" = now() WHERE "entityId" = $1`, [productId]);
    await db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [productId]);
  });

  await owner.reload();
  await expect(owner.getByTestId("product-status")).toHaveText("ACTIVE");
  await expect(owner.getByTestId("partition-count")).toHaveText("3");
  await expect(owner.getByTestId("partition-warning")).toContainText("Keyed ordering changes for new records");
  await owner.getByLabel("New partition count").fill("2");
  await owner.getByLabel("Why more partitions?").fill("Peak season needs more consumers");
  await owner.getByRole("button", { name: "Request more partitions" }).click();
  await expect(owner.getByText("The product has 3 partitions; ask for more")).toBeVisible();
  await owner.getByLabel("New partition count").fill("8");
  await owner.getByRole("button", { name: "Request more partitions" }).click();
  await expect(owner.getByTestId("partition-change")).toContainText("REQUESTED");
  await expect(owner.getByTestId("partition-change")).toContainText("3 → 8 partitions");

  await reviewer.goto("/review");
  const change = reviewer.getByTestId("review-change").filter({ hasText: name });
  await expect(change).toContainText("partitions 3 → 8");
  await expect(change).toContainText("per-key order holds only within old and within new records");
  await change.getByRole("button", { name: `Approve change to ${name}` }).click();
  await expect(change).toHaveCount(0);

  await owner.reload();
  await expect(owner.getByTestId("partition-count")).toHaveText("8");
  await expect(owner.getByTestId("partition-change")).toContainText("APPROVED");
  await expect(owner.getByTestId("provisioning-steps").getByRole("listitem").last()).toContainText("Grow topic to 8 partitions");
});

test("an admin reserves a Kafka principal: an owner's new account cannot take it; platform entries cannot be removed; both changes audited", async ({ browser }) => {
  // On a phone-sized screen, by keyboard where it matters.
  const admin = await (await browser.newContext({ storageState: storageFor("admin"), viewport: { width: 390, height: 844 } })).newPage();
  // Service accounts of orders are named orders-<name>: reserve one the owner will then try.
  const suffix = `etl-${run}`;
  const name = `orders-${suffix}`;
  await admin.goto("/admin/domains");
  await admin.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Reserved principals" }).click();
  await expect(admin).toHaveURL(/\/admin\/principals$/);
  const table = admin.getByTestId("reserved-principals");
  // The platform's own entries are listed and protected.
  const anonymous = table.locator('[data-testid="reserved-principal"][data-name="ANONYMOUS"]');
  await expect(anonymous).toContainText("protects the platform");
  await expect(anonymous.getByRole("button")).toHaveCount(0);

  // A reason too short is refused next to its field; nothing is added.
  await admin.getByLabel("Kafka user name").fill(`User:${name}`);
  await admin.getByLabel("Reason").fill("no");
  await admin.getByRole("button", { name: "Reserve" }).click();
  await expect(admin.getByText("Say why the name is reserved.")).toBeVisible();
  await expect(table.locator(`[data-testid="reserved-principal"][data-name="${name}"]`)).toHaveCount(0);

  // Nothing wider than the screen: the table scrolls inside its card, not the page.
  expect(await admin.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

  await admin.getByLabel("Reason").fill("");
  await admin.getByLabel("Reason").pressSequentially("Reserved for the ETL migration's account");
  await admin.keyboard.press("Enter");
  const row = table.locator(`[data-testid="reserved-principal"][data-name="${name}"]`);
  await expect(row).toContainText("Reserved for the ETL migration's account");
  await expect(row).toContainText("added by an admin");
  await expect(row).toContainText(`User:${name}`);
  // The same name again is refused with the reason, next to the field.
  await admin.getByLabel("Kafka user name").fill(name);
  await admin.getByLabel("Reason").fill("Reserved twice");
  await admin.getByRole("button", { name: "Reserve" }).click();
  await expect(admin.getByText("Already reserved.")).toBeVisible();

  // The orders owner can no longer create an account under that name: the form says why.
  const owner = await as(browser, "ordersOwner");
  await owner.goto("/my-domain");
  const orders = owner.locator("section").filter({ has: owner.getByTestId("account-name-prefix").getByText("orders-", { exact: true }) }).first();
  await orders.getByLabel("Account name").fill(suffix);
  await orders.getByRole("button", { name: "Create service account" }).click();
  await expect(orders.getByText(`The Kafka principal "${name}" is reserved (Reserved for the ETL migration's account); choose another name.`)).toBeVisible();
  await expect(orders.getByText(`User:${name}`, { exact: true })).toHaveCount(0);

  await row.getByRole("button", { name: `Remove reservation of ${name}` }).focus();
  await admin.keyboard.press("Enter");
  await expect(row).toHaveCount(0);

  // Both changes are in the audit log, as the reviewer sees it.
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto("/audit");
  await reviewer.getByLabel("Action").fill("reservedPrincipal.");
  const events = reviewer.getByTestId("audit-row").filter({ hasText: name });
  await expect(events.filter({ hasText: "reservedPrincipal.added" })).toHaveCount(1);
  await expect(events.filter({ hasText: "reservedPrincipal.removed" })).toHaveCount(1);
  await expect(events.filter({ hasText: "reservedPrincipal.added" })).toContainText("admin@kappa.example");
});

test("every admin section is refused to a non-admin on the server, and shows the admin tabs to an admin", async ({ browser }) => {
  const sections = [
    ["/admin/domains", "Only platform admins manage domains."],
    ["/admin/users", "Only platform admins manage users and global roles."],
    ["/admin/sso", "Only platform admins see the single-sign-on configuration."],
    ["/admin/principals", "Only platform admins see the reserved Kafka principals."],
    ["/admin/clusters", "Only platform admins see and register the clusters."],
  ] as const;
  const reviewer = await as(browser, "reviewer");
  const admin = await as(browser, "admin");
  for (const [href, refusal] of sections) {
    await reviewer.goto(href);
    await expect(reviewer.getByText("Not available")).toBeVisible();
    await expect(reviewer.getByText(refusal)).toBeVisible();
    await expect(reviewer.getByRole("navigation", { name: "Admin sections" })).toHaveCount(0);

    await admin.goto(href);
    const tabs = admin.getByRole("navigation", { name: "Admin sections" });
    await expect(tabs.getByRole("link", { name: /./ })).toHaveCount(sections.length);
    await expect(tabs.locator('[aria-current="page"]')).toHaveAttribute("href", href);
    await expect(admin.getByText("Not available")).toHaveCount(0);
  }
});
