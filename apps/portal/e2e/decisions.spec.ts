import { expect, type Page } from "@playwright/test";
import { createProduct } from "./api-setup";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Issue 31 (points 3, 4, 12), what people see (worker off):
 * - governance's review queue holds a subscription's need for personal data
 *   after the owners approved the access, a promotion to another environment
 *   and a partition increase, each with a notification; the rule for personal
 *   data is said on the page;
 * - the product's owners approve or reject a request from the subscription's
 *   own page;
 * - the subscribing domain's owner cancels its own subscription from that
 *   page, with a reason, audited as a revoke;
 * - the revoke and deprecate forms say who will read the reason.
 */

const run = Date.now().toString(36);
const productName = `Parcel Contacts ${run}`;
const environment = `qa${run.replace(/[^a-z0-9]/g, "").slice(-8)}`;
const avro = JSON.stringify({
  type: "record",
  name: `ParcelContact${run}`,
  fields: [
    { name: "parcelId", type: "string" },
    { name: "email", type: "string", pii: true },
  ],
});

let productId = "";
let piiSubscriptionId = "";
let otherSubscriptionId = "";

async function ok(response: Awaited<ReturnType<Page["request"]["post"]>>, what: string) {
  expect(response.ok(), `${what}: ${response.status()} ${await response.text()}`).toBe(true);
  return (await response.json()) as { id: string };
}

test.describe.serial("one place to decide", () => {
  test("setup: an ACTIVE CONFIDENTIAL orders product with a PII field; payments asks for it twice", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    ({ id: productId } = await createProduct(owner, "orders", {
      name: productName,
      description: "Who to tell about a parcel, per parcel.",
      classification: "CONFIDENTIAL",
      tags: ["parcels"],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 2,
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: avro },
    }));
    await ok(await owner.request.post(`/api/v1/products/${productId}/submit`), "submit");
    const reviewer = await as(browser, "reviewer");
    await ok(await reviewer.request.post(`/api/v1/products/${productId}/approve`, { data: {} }), "approve");
    // Standing in for the worker: the topic exists.
    await withDb((db) => db.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [productId]));

    const payments = await as(browser, "paymentsOwner");
    const me = (await (await payments.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
    const domainId = me.memberships.find((m) => m.domainSlug === "payments")?.domainId;
    const first = await ok(await payments.request.post("/api/v1/service-accounts", { data: { domainId, name: `payments-dec-a-${run}` } }), "account");
    const second = await ok(await payments.request.post("/api/v1/service-accounts", { data: { domainId, name: `payments-dec-b-${run}` } }), "account");
    ({ id: piiSubscriptionId } = await ok(
      await payments.request.post("/api/v1/subscriptions", {
        data: { productId, serviceAccountId: first.id, purpose: "Tell customers when their refund parcel arrives.", piiNeeded: true, piiJustification: "We e-mail the customer about the parcel." },
      }),
      "subscribe with PII",
    ));
    ({ id: otherSubscriptionId } = await ok(
      await payments.request.post("/api/v1/subscriptions", { data: { productId, serviceAccountId: second.id, purpose: "Count parcels per carrier for the invoices." } }),
      "subscribe",
    ));
  });

  test("the owner approves and rejects requests from the subscription's own page; the PII rule is said there", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/subscriptions/${piiSubscriptionId}`);
    await expect(owner.getByTestId("pii-rule")).toContainText("personal data needs a governance decision besides the owners'");
    const decision = owner.getByTestId("subscription-decision");
    await decision.getByRole("button", { name: "Approve" }).click();
    await expect(owner.getByTestId("subscription-status")).toContainText("APPROVED");

    await owner.goto(`/subscriptions/${otherSubscriptionId}`);
    await owner.getByTestId("subscription-decision").getByRole("button", { name: "Reject" }).click();
    await owner.getByLabel("Reason").fill("Carrier counts come from the invoices product.");
    await owner.getByRole("button", { name: "Reject request" }).click();
    await expect(owner.getByTestId("subscription-status")).toContainText("REJECTED");

    // The requester's side offers no decision on its own request.
    const payments = await as(browser, "paymentsOwner");
    await payments.goto(`/subscriptions/${otherSubscriptionId}`);
    await expect(payments.getByTestId("subscription-status")).toContainText("REJECTED");
    await expect(payments.getByRole("button", { name: "Approve" })).toHaveCount(0);
  });

  test("governance's queue holds the PII grant, a promotion and a partition increase, each with a notification", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    // Another environment to promote to (standing in for an admin's registration).
    await withDb((db) =>
      db.query(`INSERT INTO "Cluster" (id, environment, "primary", bootstrap, "securityProtocol", "saslMechanism", "updatedAt") VALUES ($1, $2, false, 'kafka.qa.example:9092', 'PLAINTEXT', 'none', now())`, [`c${run}`, environment]),
    );
    await ok(await owner.request.post(`/api/v1/products/${productId}/promote`, { data: { environment } }), "promote");
    await ok(await owner.request.post(`/api/v1/products/${productId}/partitions`, { data: { partitions: 4, reason: "More parcels since the new depot opened." } }), "partitions");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    const pii = reviewer.getByTestId("review-pii").filter({ hasText: productName });
    await expect(pii).toContainText("with PII masked");
    await expect(pii).toContainText("We e-mail the customer about the parcel.");
    await expect(reviewer.getByTestId("pii-rule")).toContainText("a governance reviewer other than the requester grants the personal data");
    await expect(reviewer.getByTestId("review-promotion").filter({ hasText: productName })).toContainText(`→ ${environment}`);
    await expect(reviewer.getByTestId("review-change").filter({ hasText: productName })).toContainText("4");

    await reviewer.goto("/notifications");
    const centre = reviewer.getByTestId("notification-centre");
    await expect(centre).toContainText(`asks for personal data of ${productName}`);
    await expect(centre).toContainText(`${productName} awaits review for ${environment}`);
    await expect(centre).toContainText(`${productName}: 2 → 4 partitions waits for review`);

    await reviewer.goto("/review");
    await reviewer.getByRole("button", { name: new RegExp(`Grant personal data of ${productName}`) }).click();
    await expect(reviewer.getByTestId("review-pii").filter({ hasText: productName })).toHaveCount(0);
  });

  test("the revoke and deprecate forms say who reads the reason", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}`);
    const row = owner.getByTestId("subscriptions").getByRole("listitem").filter({ hasText: `payments-dec-a-${run}` });
    await row.getByRole("button", { name: "Revoke" }).click();
    await expect(row).toContainText("the subscriber — every member of Payments, the account's domain — and the owners of Orders see it");
    await expect(row).not.toContainText("the requester sees it");
    await owner.getByRole("button", { name: "Deprecate…" }).click();
    const deprecate = owner.locator("form").filter({ hasText: "Sunset date" });
    await expect(deprecate).toContainText("every subscriber (the members of each subscribing domain) and the members of Orders see it");
    await expect(deprecate).not.toContainText("the requester sees it");
  });

  test("the consuming domain's owner cancels its own subscription from its page, with a reason, audited as a revoke", async ({ browser }) => {
    const payments = await as(browser, "paymentsOwner");
    await payments.goto(`/subscriptions/${piiSubscriptionId}`);
    await payments.getByRole("button", { name: "Cancel subscription…" }).click();
    const form = payments.getByTestId("subscription-decision");
    await expect(form).toContainText("the owners of Orders and every member of Payments see it");
    await form.getByLabel("Reason").fill("Refund parcels are tracked by the carrier now.");
    await form.getByRole("button", { name: "Cancel subscription" }).click();
    await expect(payments.getByTestId("subscription-status")).toContainText("REVOKED");
    await expect(payments.getByText("Refund parcels are tracked by the carrier now.")).toBeVisible();

    // The audit log (governance reads it): the same event as a revoke, by the consumer's owner, with the reason.
    const reviewer = await as(browser, "reviewer");
    const audit = (await (await reviewer.request.get(`/api/v1/audit-events?entityType=Subscription&entityId=${piiSubscriptionId}`)).json()) as { items: { action: string; actorEmail: string; data: { reason?: string } }[] };
    expect(audit.items.find((e) => e.action === "subscription.revoked")).toMatchObject({ actorEmail: "owner@payments.example", data: { reason: "Refund parcels are tracked by the carrier now." } });
    const owner = await as(browser, "ordersOwner");
    await owner.goto("/notifications");
    await expect(owner.getByTestId("notification-centre")).toContainText(`Access to ${productName} revoked`);
  });

  test("an owner's erasure request: the card says it is irreversible before submitting, governance approves it in the queue, the keys are gone", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    // A DEK as the registry writes one (the worker lane's journey writes through the serializer): the KEK through the API, the row directly.
    expect((await owner.request.get("/api/schema-registry/dek-registry/v1/keks/kappa-orders")).ok()).toBe(true);
    await withDb((db) =>
      db.query(
        `INSERT INTO "RegistryDek" (id, "kekId", "productId", subject, version, algorithm, "encryptedKeyMaterial") SELECT $1, k.id, p.id, p."topicName" || '-value', 1, 'AES256_GCM', 'bm90LWEta2V5' FROM "RegistryKek" k, "DataProduct" p WHERE k.name = 'kappa-orders' AND p.id = $2`,
        [`dek-${run}`, productId],
      ),
    );
    await owner.goto(`/products/${productId}`);
    await expect(owner.getByTestId("encryption-key-count")).toHaveText("encryption key");
    await expect(owner.getByTestId("key-erasure-warning")).toContainText("Irreversible.");
    await expect(owner.getByTestId("key-erasure-warning")).toContainText("nobody — not the producer, not PII-approved subscribers, not the platform — can ever decrypt");
    const submit = owner.getByRole("button", { name: "Request erasure of the keys" });
    await owner.getByLabel("Why must the keys be destroyed?").fill("A customer's erasure request (ticket 4711).");
    // Not before the owner says they understand.
    await expect(submit).toBeDisabled();
    await owner.getByLabel("I understand that the encrypted fields written so far can never be decrypted again.").check();
    await submit.click();
    await expect(owner.getByTestId("key-erasure-request")).toContainText("REQUESTED");
    await expect(owner.getByTestId("key-erasure-request")).toContainText("erasure of encryption key");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    const change = reviewer.getByTestId("review-change").filter({ hasText: "erasure request" }).filter({ hasText: productName });
    await expect(change).toContainText("destroy its encryption key (erasure request)");
    await expect(change.getByTestId("review-erasure")).toContainText("Irreversible: approving deletes the product's encryption keys");
    await change.getByRole("button", { name: `Approve change to ${productName}` }).click();
    await expect(reviewer.getByTestId("review-change").filter({ hasText: "erasure request" }).filter({ hasText: productName })).toHaveCount(0);
    expect((await withDb((db) => db.query(`SELECT count(*)::int AS n FROM "RegistryDek" WHERE "productId" = $1`, [productId]))).rows[0]?.n).toBe(0);

    await owner.reload();
    await expect(owner.getByTestId("key-erasure-request")).toContainText("APPROVED");
    await expect(owner.getByTestId("key-erasure-warning")).toHaveCount(0);
  });
});
