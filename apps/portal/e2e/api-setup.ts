import { expect, type Page } from "@playwright/test";

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
