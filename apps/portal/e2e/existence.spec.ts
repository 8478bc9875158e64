import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { withDb } from "./db";
import { test } from "./fixtures";
import { storageFor, type Role } from "./roles";

/*
 * Issue 30, finding 9: for ids the caller may not see, routes answered 403
 * where an unknown id answered 404 (PATCH/submit of a product, its messages,
 * review and drift, a subscription, a credential reveal, schema versions), and
 * another domain's DRAFT showed its topic and configs under /environments.
 * This walks every operation of the OpenAPI document that takes an id, once
 * with an id that does not exist and once with one that exists but that the
 * caller may not see, and requires the same status and the same body shape.
 * Also over HTTP: undeclared methods (finding 16) and the text and nesting
 * limits (findings 19 and 10) on the real portal.
 */

const UNKNOWN = "cunknown00000000000000000";
const run = Date.now().toString(36);
let counter = 0;
const unique = () => `${run}-${++counter}`;
const SCHEMA = JSON.stringify({ type: "record", name: "Probe", fields: [{ name: "id", type: "string" }] });
const NEXT_SCHEMA = JSON.stringify({ type: "record", name: "Probe", fields: [{ name: "id", type: "string" }, { name: "note", type: ["null", "string"], default: null }] });

const contexts = new Map<Role, APIRequestContext>();
const as = (role: Role) => contexts.get(role)!;
/** Per caller, an id of each kind that exists and that the caller may not see. */
const invisible: Record<"paymentsOwner" | "admin", Record<string, string>> = { paymentsOwner: {}, admin: {} };
let ordersId = "";
let draftId = "";

async function id(response: APIResponse, what: string): Promise<string> {
  if (!response.ok()) throw new Error(`fixture ${what}: ${response.status()} ${await response.text()}`);
  const body = (await response.json()) as { id?: string; webhook?: { id: string } };
  const found = body.id ?? body.webhook?.id;
  if (!found) throw new Error(`fixture ${what}: no id`);
  return found;
}

test.beforeAll(async ({ playwright, baseURL }) => {
  for (const role of ["ordersOwner", "paymentsOwner", "reviewer", "admin"] as const) {
    contexts.set(role, await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Connection: "close" }, storageState: storageFor(role) }));
  }
  ordersId = await withDb(async (c) => (await c.query<{ id: string }>(`SELECT id FROM "Domain" WHERE slug = 'orders'`)).rows[0]!.id);
  const product = (name: string) => ({
    domainId: ordersId,
    name,
    description: "A probe of the existence walk.",
    classification: "INTERNAL",
    tags: [],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.example",
    schema: { format: "AVRO", definition: SCHEMA },
  });
  draftId = await id(await as("ordersOwner").post("/api/v1/products", { data: product(`Existence Draft ${unique()}`) }), "draft");
  const activeId = await id(await as("ordersOwner").post("/api/v1/products", { data: product(`Existence Active ${unique()}`) }), "active");
  await id(await as("ordersOwner").post(`/api/v1/products/${activeId}/submit`), "submit");
  await id(await as("reviewer").post(`/api/v1/products/${activeId}/approve`), "approve");
  // Standing in for the worker, which activates a product once provisioned.
  await withDb((c) => c.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [activeId]));
  const account = await id(await as("ordersOwner").post("/api/v1/service-accounts", { data: { domainId: ordersId, name: `orders-zz-exist-${unique()}` } }), "account");
  const webhook = await id(await as("ordersOwner").post(`/api/v1/domains/${ordersId}/webhooks`, { data: { url: `https://hooks.example.com/exist/${unique()}`, description: "existence probe", kinds: [] } }), "webhook");
  const changeRequest = await id(await as("ordersOwner").post(`/api/v1/products/${activeId}/partitions`, { data: { partitions: 2, reason: "More consumers in parallel." } }), "change request");
  const schemaVersion = await id(await as("ordersOwner").post(`/api/v1/products/${activeId}/schema-versions`, { data: { definition: NEXT_SCHEMA } }), "schema version");
  const environment = `ex${unique().replace(/[^a-z0-9]/g, "").slice(-20)}`;
  await id(await as("admin").post("/api/v1/clusters", { data: { environment, bootstrap: "127.0.0.1:1", securityProtocol: "PLAINTEXT" } }), "cluster");
  const promotion = await id(await as("ordersOwner").post(`/api/v1/products/${activeId}/promote`, { data: { environment } }), "promotion");
  const { task, subscription } = await withDb(async (c) => {
    const taskId = `exist-task-${unique()}`;
    // Standing in for the worker: a failed step of the draft's domain (a draft has none of its own yet).
    await c.query(
      `INSERT INTO "ProvisioningTask" (id, kind, payload, "entityType", "entityId", step, status, attempts, "lastError", "updatedAt") VALUES ($1, 'CREATE_TOPIC', '{}', 'DataProduct', $2, 1, 'FAILED', 10, 'broker down', now())`,
      [taskId, draftId],
    );
    return { task: taskId, subscription: (await c.query<{ id: string }>(`SELECT id FROM "Subscription" ORDER BY "createdAt" LIMIT 1`)).rows[0]!.id };
  });
  // The payments owner sees neither orders' unpublished work nor its accounts, hooks and reviews.
  invisible.paymentsOwner = { products: draftId, "service-accounts": account, webhooks: webhook, "change-requests": changeRequest, "schema-versions": schemaVersion, promotions: promotion, "provisioning-tasks": task };
  // A platform admin is no reviewer and no member: no unpublished products, subscriptions or reviews (accounts, hooks and tasks it does see).
  invisible.admin = { products: draftId, subscriptions: subscription, "change-requests": changeRequest, "schema-versions": schemaVersion, promotions: promotion };
});

test.afterAll(async () => {
  for (const context of contexts.values()) await context.dispose();
});

interface Answer {
  status: number;
  shape: string;
}

async function call(context: APIRequestContext, method: string, path: string): Promise<Answer> {
  const options = method === "get" || method === "delete" ? {} : { data: {} };
  const response = await context.fetch(path, { method: method.toUpperCase(), ...options });
  const text = await response.text();
  let shape = `text:${text.length > 0}`;
  try {
    const body = JSON.parse(text) as { error?: Record<string, unknown> };
    shape = JSON.stringify({ keys: Object.keys(body).sort(), error: body.error ? { keys: Object.keys(body.error).sort(), code: body.error.code } : null });
  } catch {
    // not JSON: compared by presence
  }
  return { status: response.status(), shape };
}

for (const caller of ["paymentsOwner", "admin"] as const) {
  test(`every operation with an id answers an invisible id exactly as an unknown one (${caller})`, async ({ request }) => {
    test.setTimeout(300_000);
    const doc = (await (await request.get("/api/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const ordersMember = await withDb(async (c) => (await c.query<{ id: string }>(`SELECT id FROM "User" WHERE email = 'member@orders.example'`)).rows[0]!.id);
    const differences: string[] = [];
    let compared = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      const collection = template.split("/")[1] ?? "";
      const hidden = invisible[caller][collection];
      if (!template.startsWith(`/${collection}/{id}`) || !hidden) continue;
      const fill = (first: string) => `/api/v1${template.replace("{id}", first).replace("{userId}", ordersMember).replace("{key}", "k1")}`;
      for (const method of Object.keys(operations)) {
        const [unknown, notVisible] = [await call(as(caller), method, fill(UNKNOWN)), await call(as(caller), method, fill(hidden))];
        compared++;
        if (unknown.status !== notVisible.status || unknown.shape !== notVisible.shape) {
          differences.push(`${method.toUpperCase()} ${template}: unknown id → ${unknown.status} ${unknown.shape}; invisible id → ${notVisible.status} ${notVisible.shape}`);
        }
      }
    }
    expect(compared).toBeGreaterThan(caller === "admin" ? 30 : 40);
    expect(differences).toEqual([]);
  });
}

test("another domain's DRAFT has no environments to show (404, no topic or configs)", async () => {
  const response = await as("paymentsOwner").get(`/api/v1/products/${draftId}/environments`);
  expect(response.status()).toBe(404);
  expect(await response.text()).not.toContain("orders.existence-draft");
});

test("an undeclared method is 405 with Allow on the real portal, not a 500 (finding 16)", async ({ request }) => {
  for (const [path, allow] of [
    [`/api/v1/products/${UNKNOWN}`, "GET, PATCH, HEAD, OPTIONS"],
    ["/api/v1/me", "GET, HEAD, OPTIONS"],
    ["/api/schema-registry/subjects", "GET, HEAD, OPTIONS"],
  ] as const) {
    const response = await request.fetch(path, { method: "TRACE" });
    expect({ path, status: response.status(), allow: response.headers().allow }).toEqual({ path, status: 405, allow });
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("METHOD_NOT_ALLOWED");
  }
  const put = await request.fetch("/api/v1/openapi.json", { method: "PUT", data: {} });
  expect(put.status()).toBe(405);
  expect(put.headers().allow).toBe("GET, HEAD, OPTIONS");
});

test("a lone surrogate or a control character in a name is a 400 naming the field; a body nested 100 levels is a 400 (findings 19, 10)", async () => {
  const owner = as("ordersOwner");
  const post = (data: string) => owner.fetch("/api/v1/products", { method: "POST", data, headers: { "content-type": "application/json" } });
  const base = `"domainId":"${ordersId}","description":"A probe of the text rules.","classification":"INTERNAL","freshnessSeconds":60,"availabilityPct":99.9,"partitions":1,"contactEmail":"owner@orders.example","schema":{"format":"AVRO","definition":${JSON.stringify(SCHEMA)}}`;
  for (const name of ["Probe \\ud800 name", "\\u0006Probe name"]) {
    const response = await post(`{"name":"${name}",${base}}`);
    expect(response.status()).toBe(400);
    expect(((await response.json()) as { error: { fields: Record<string, string[]> } }).error.fields.name).toBeDefined();
  }
  const deep = await post(`${'{"a":'.repeat(100)}1${"}".repeat(100)}`);
  expect(deep.status()).toBe(400);
  expect(await deep.text()).toContain("nested more than 64 levels");
});
