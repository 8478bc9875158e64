import { expect, type Browser, type Page } from "@playwright/test";
import { withDb } from "./db";
import { as } from "./roles";

/*
 * Setup through the API that several journeys share (what they test happens
 * afterwards, in the pages).
 */

/**
 * Registers a DRAFT product in the signed-in owner's domain `domainSlug`
 * (POST /api/v1/products) and returns its id and topic. `fields` are the
 * product's own (name, schema, …); the domain is looked up from /api/v1/me.
 */
export async function createProduct(owner: Page, domainSlug: string, fields: Record<string, unknown>): Promise<{ id: string; topicName: string }> {
  const me = (await (await owner.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
  const domainId = me.memberships.find((m) => m.domainSlug === domainSlug)?.domainId;
  expect(domainId, `the signed-in user owns no domain "${domainSlug}"`).toBeTruthy();
  const created = await owner.request.post("/api/v1/products", { data: { domainId, ...fields } });
  expect(created.status(), await created.text()).toBe(201);
  return (await created.json()) as { id: string; topicName: string };
}

/**
 * An ACTIVE orders product whose records carry one field, `parcelId`: registered
 * by the orders owner, submitted, approved by the reviewer, and marked ACTIVE as
 * the worker would once its topic exists (these journeys run without it).
 */
export async function activeOrdersProduct(browser: Browser, fields: { name: string; description: string; recordName: string }): Promise<{ owner: Page; id: string; topicName: string }> {
  const owner = await as(browser, "ordersOwner");
  const { id, topicName } = await createProduct(owner, "orders", {
    name: fields.name,
    description: fields.description,
    classification: "INTERNAL",
    tags: ["parcels"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.example",
    schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: fields.recordName, fields: [{ name: "parcelId", type: "string" }] }) },
  });
  expect((await owner.request.post(`/api/v1/products/${id}/submit`)).status()).toBe(200);
  const reviewer = await as(browser, "reviewer");
  expect((await reviewer.request.post(`/api/v1/products/${id}/approve`, { data: {} })).status()).toBe(200);
  await withDb((db) => db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [id]));
  return { owner, id, topicName };
}

/**
 * A new payments service account `accountName` and its subscription to the
 * product, approved by the product's `owner`, with a lag objective of 100
 * records, and marked ACTIVE as the worker would once the grant is on the
 * broker. Its consumer group in these journeys is `<accountName>.tracker`.
 */
export async function activePaymentsSubscription(browser: Browser, owner: Page, productId: string, accountName: string): Promise<{ payments: Page; accountId: string; subscriptionId: string; group: string }> {
  const payments = await as(browser, "paymentsOwner");
  const me = (await (await payments.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
  const domainId = me.memberships.find((m) => m.domainSlug === "payments")?.domainId;
  const account = (await (await payments.request.post("/api/v1/service-accounts", { data: { domainId, name: accountName } })).json()) as { id: string };
  const sub = (await (await payments.request.post("/api/v1/subscriptions", { data: { productId, serviceAccountId: account.id, purpose: "Show customers where their parcel is." } })).json()) as { id: string };
  expect((await owner.request.post(`/api/v1/subscriptions/${sub.id}/approve`)).status()).toBe(200);
  expect((await payments.request.put(`/api/v1/subscriptions/${sub.id}/objectives`, { data: { maxLagRecords: 100 } })).ok()).toBe(true);
  await withDb((db) => db.query(`UPDATE "Subscription" SET status = 'ACTIVE' WHERE id = $1`, [sub.id]));
  return { payments, accountId: account.id, subscriptionId: sub.id, group: `${accountName}.tracker` };
}
