import { expect, request as playwrightRequest } from "@playwright/test";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Policies as code in the browser and over the API: the product form
 * evaluates the policy as the owner types (rule id and reason next to the
 * field), the API refuses the same product with the rule id, the refusal is in
 * the audit log, API tokens work with the same checks, and an admin's policy
 * change shows up with its diff on the governance page.
 */

const run = Date.now().toString(36);

const piiSchema = (tagged: boolean) =>
  JSON.stringify({
    type: "record",
    name: "CustomerContact",
    fields: [{ name: "customerId", type: "string" }, { name: "email", type: "string", ...(tagged ? { pii: true } : {}) }],
  });

test("a violating product form shows the failing rule inline as the owner types, and the API refuses it with the rule id", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  await owner.goto("/products/new");
  await owner.getByLabel("Name").fill(`Kappa Contacts ${run}`);
  // Inline, before any submit: the rule id and its reason under the field.
  const nameNotes = owner.locator("#name-notes");
  await expect(nameNotes).toContainText('"kappa" is a reserved word');
  await expect(nameNotes.locator("[data-policy-rule='naming.slug'][data-outcome='fail']")).toBeVisible();
  await expect(owner.getByLabel("Name")).toHaveAttribute("aria-describedby", /name-notes/);

  await owner.getByLabel("Name").fill(`Customer Contacts ${run}`);
  await expect(nameNotes).toHaveCount(0);
  await owner.getByLabel("Description").fill("Customer contact details for the fraud screening team.");
  await owner.getByLabel("Definition").fill(piiSchema(false));
  await expect(owner.locator("#schemaDefinition-notes")).toContainText('email looks like personal data: tag it with "pii": true');
  await owner.getByLabel("Definition").fill(piiSchema(true));
  await expect(owner.locator("#schemaDefinition-notes")).toHaveCount(0);
  await expect(owner.locator("#classification-notes [data-policy-rule='pii.classification']")).toContainText("must be CONFIDENTIAL or RESTRICTED, not INTERNAL");
  // Forever retention without tiered storage only warns.
  await expect(owner.getByTestId("policy-checks").locator("[data-policy-rule='topic.tiered-storage']")).toHaveAttribute("data-outcome", "warn");

  // Submitting now saves nothing and names the rule.
  await owner.getByRole("button", { name: "Register product" }).click();
  await expect(owner.getByRole("main").getByRole("alert").first()).toContainText("pii.classification");
  await expect(owner).toHaveURL(/\/products\/new$/);

  // The API refuses the same product with the rule id in the error body.
  const me = (await (await owner.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
  const domainId = me.memberships.find((m) => m.domainSlug === "orders")?.domainId;
  const refused = await owner.request.post("/api/v1/products", {
    data: {
      domainId,
      name: `Customer Contacts ${run}`,
      description: "Customer contact details for the fraud screening team.",
      classification: "INTERNAL",
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 3,
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: piiSchema(true) },
    },
  });
  expect(refused.status()).toBe(422);
  const body = (await refused.json()) as { error: { code: string; message: string; fields: Record<string, string[]>; policy: { version: number; rules: string[] } } };
  expect(body.error.code).toBe("POLICY_VIOLATION");
  expect(body.error.policy.rules).toEqual(["pii.classification"]);
  expect(body.error.fields.classification?.[0]).toContain("(policy rule pii.classification)");

  // The refusal is an audit event with the evaluation.
  const reviewer = await as(browser, "reviewer");
  const audit = (await (await reviewer.request.get("/api/v1/audit-events?actor=owner@orders.example&pageSize=20")).json()) as { items: { action: string; data: { blocking?: string[] } }[] };
  expect(audit.items.find((e) => e.action === "policy.refused")?.data.blocking).toEqual(["pii.classification"]);

  // Fixed (CONFIDENTIAL), it registers; the review queue shows the verdict beside it.
  await owner.getByLabel("Classification").selectOption("CONFIDENTIAL");
  await expect(owner.locator("#classification-notes")).toHaveCount(0);
  await owner.getByRole("button", { name: "Register product" }).click();
  await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname) && url.pathname !== "/products/new");
  await owner.getByRole("button", { name: "Submit for review" }).click();
  await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");
  await reviewer.goto("/review");
  const row = reviewer.getByTestId("review-product").filter({ hasText: `Customer Contacts ${run}` });
  await expect(row.getByTestId("review-policy")).toContainText("No failures · 1 warning");
});

test("API tokens: created once from a session, then Bearer works with the same permission checks, and revocation ends it", async ({ browser, baseURL }) => {
  const owner = await as(browser, "ordersOwner");
  const created = await owner.request.post("/api/v1/tokens", { data: { name: `e2e reader ${run}`, scopes: ["read"], expiresInDays: 7 } });
  expect(created.status()).toBe(201);
  const { token, id } = (await created.json()) as { token: string; id: string };
  expect(token).toMatch(/^kappa_/);

  // A client with no cookies at all.
  const bare = await playwrightRequest.newContext({ baseURL });
  const auth = { authorization: `Bearer ${token}` };
  expect((await bare.get("/api/v1/products?q=Order", { headers: auth })).status()).toBe(200);
  expect((await bare.get("/api/v1/products")).status()).toBe(401);
  const write = await bare.post("/api/v1/service-accounts", { headers: auth, data: { domainId: "x", name: `ro-${run}` } });
  expect(write.status()).toBe(403);
  expect((await bare.get("/api/v1/products", { headers: { authorization: "Bearer kappa_nope" } })).status()).toBe(401);

  // The token page lists it without its secret; revoking ends it at once.
  await owner.goto("/tokens");
  const table = owner.getByTestId("token-table");
  await expect(table).toContainText(`e2e reader ${run}`);
  await expect(table).not.toContainText(token);
  await owner.getByRole("button", { name: `Revoke e2e reader ${run}` }).click();
  await expect(table.getByRole("row", { name: new RegExp(`e2e reader ${run}`) })).toContainText("revoked");
  expect((await bare.get("/api/v1/products", { headers: auth })).status()).toBe(401);
  void id;
  await bare.dispose();
});

test("governance: an admin publishes a policy version with a reason; the history shows it with its diff", async ({ browser }) => {
  const admin = await as(browser, "admin");
  await admin.goto("/governance");
  await expect(admin.getByRole("heading", { name: /Products in violation of policy v\d+/ })).toBeVisible();
  const editor = admin.getByLabel(/Policy document \(YAML\)/);
  const source = await editor.inputValue();
  expect(source).toContain("apiVersion: kappa-mesh/policy/v1");
  await editor.fill(source.replace("params: { minDays: 30 }", "params: { minDays: 31 }"));
  await admin.getByLabel("Reason for the change").fill(`Longer notice (${run})`);
  await admin.getByRole("button", { name: /^Publish v\d+$/ }).click();
  await expect(admin.getByRole("status").filter({ hasText: /Policy v\d+ is in force/ })).toBeVisible();
  await expect(admin.getByTestId("policy-diff")).toContainText("params: { minDays: 31 }");
  await expect(admin.getByText(`“Longer notice (${run})”`)).toBeVisible();

  // A broken document is refused with its problem and changes nothing.
  await editor.fill("apiVersion: kappa-mesh/policy/v1\nrules:\n  - id: x");
  await admin.getByLabel("Reason for the change").fill("Broken on purpose");
  await admin.getByRole("button", { name: /^Publish v\d+$/ }).click();
  await expect(admin.getByRole("main").getByRole("alert").first()).toContainText("The policy document is invalid");

  // A reviewer reads the page but has no editor.
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto("/governance");
  await expect(reviewer.getByTestId("policy-diff")).toContainText("minDays: 31");
  await expect(reviewer.getByLabel(/Policy document \(YAML\)/)).toHaveCount(0);
});

test("the API reference renders the OpenAPI document from the portal itself, fetching nothing from elsewhere", async ({ page, baseURL }) => {
  const foreign: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(baseURL ?? "") && !r.url().startsWith("data:")) foreign.push(r.url());
  });
  const doc = await page.request.get("/api/v1/openapi.json");
  expect(doc.status()).toBe(200);
  expect(((await doc.json()) as { openapi: string }).openapi).toBe("3.1.0");
  await page.goto("/api-docs");
  const reference = page.getByTestId("api-reference");
  await expect(reference.getByText("Kappa Mesh API", { exact: false }).first()).toBeVisible();
  await expect(reference.getByText("/contracts/plan").first()).toBeVisible();
  await expect(reference.getByText("/tokens").first()).toBeVisible();
  expect(foreign).toEqual([]);
});
