import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "@playwright/test";
import avro from "avsc";
import { Kafka, logLevel } from "kafkajs";
import { createProduct } from "./api-setup";
import { issuedCredentials } from "./credentials";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Issue 12's browse journeys with the real worker and broker (project
 * `worker`, KAPPA_E2E_WORKER=1): a CONFIDENTIAL compacted product whose Avro
 * schema tags `email` as personal data. The orders producer writes real
 * Avro-encoded records with its issued credentials; the payments owner, an
 * approved subscriber without a PII grant, reads them in the message browser
 * and looks a key up in the latest-state view with the e-mail masked, while
 * the orders owner sees it unmasked. Everything asserted is on the page.
 */

const run = Date.now().toString(36);
const productName = `Customer Profiles ${run}`;
const schema = {
  type: "record",
  name: "CustomerProfile",
  namespace: "example.orders",
  fields: [
    { name: "customerId", type: "string" },
    { name: "email", type: "string", pii: true },
    { name: "city", type: "string" },
  ],
};
// The same record for the producer (avsc keeps no custom attributes such as "pii", so they are left out here).
const encoder = avro.Type.forSchema({
  type: "record",
  name: "CustomerProfile",
  namespace: "example.orders",
  fields: [
    { name: "customerId", type: "string" },
    { name: "email", type: "string" },
    { name: "city", type: "string" },
  ],
});

let productId = "";
let topic = "";
let bootstrap = "";

test.describe.serial("browsing a CONFIDENTIAL product with PII: masked for a subscriber, unmasked for the owner", () => {
  test.setTimeout(240_000);

  test("the owner publishes a compacted CONFIDENTIAL product, governance approves, the payments owner subscribes without a PII need", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    ({ id: productId, topicName: topic } = await createProduct(owner, "orders", {
      name: productName,
      description: "The latest profile per customer, for support tools and delivery planning.",
      classification: "CONFIDENTIAL",
      tags: ["orders", "customers"],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 1,
      cleanupPolicy: "compact",
      keyFields: ["customerId"],
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: JSON.stringify(schema) },
    }));

    await owner.goto(`/products/${productId}`);
    await owner.getByRole("button", { name: "Submit for review" }).click();
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    await reviewer.getByTestId("review-product").filter({ hasText: productName }).getByRole("link", { name: `Review ${productName}` }).click();
    await reviewer.getByRole("button", { name: `Approve ${productName}` }).click();
    await expect(reviewer.getByText("Decision recorded.")).toBeVisible();
    await expect(owner.getByTestId("product-status")).toHaveText("ACTIVE", { timeout: 60_000 });

    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}/subscribe`);
    await consumer.getByLabel("Purpose").fill("Match customer profiles to payment disputes by city.");
    await consumer.getByRole("button", { name: "Request subscription" }).click();
    await consumer.waitForURL(`**/products/${productId}`);
    await owner.goto("/review");
    const request = owner.getByTestId("review-subscription").filter({ hasText: productName });
    await request.getByRole("button", { name: /^Approve access/ }).click();
    // Decided once it leaves the queue: the consumer's page shows the state at its load.
    await expect(request).toHaveCount(0);
    await consumer.reload();
    await consumer.getByTestId("subscriptions").getByRole("link").first().click();
    await expect(consumer.getByTestId("subscription-status")).toHaveText("ACTIVE", { timeout: 60_000 });
    bootstrap = (await consumer.getByTestId("bootstrap").textContent()) ?? "";
    expect(bootstrap).not.toBe("");
  });

  test("records produced Avro-encoded: the subscriber's message browser masks the e-mail, the owner's shows it", async ({ browser }) => {
    const owner = await as(browser, "ordersOwner");
    const domains = (await (await owner.request.get("/api/v1/my-domains")).json()) as { slug: string; serviceAccounts: { id: string; isProducer: boolean }[] }[];
    const producerAccount = domains.find((d) => d.slug === "orders")?.serviceAccounts.find((a) => a.isProducer);
    expect(producerAccount).toBeDefined();
    const { username, password } = await issuedCredentials(owner.request, producerAccount?.id ?? "");
    const kafka = new Kafka({ clientId: `kappa-e2e-${username}`, brokers: bootstrap.split(","), sasl: { mechanism: "scram-sha-512", username, password }, logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 200 } });
    const producer = kafka.producer();
    await producer.connect();
    const profile = (n: number, city: string) => ({ customerId: `cust-${run}-${n}`, email: `customer${n}.${run}@example.com`, city });
    await producer.send({
      topic,
      messages: [profile(1, "Lyon"), profile(2, "Porto"), profile(1, "Ghent")].map((p) => ({ key: p.customerId, value: encoder.toBuffer(p) })),
    });
    await producer.disconnect();

    // The worker grants the message browser's principal READ on live topics in its own loop; until then the
    // browser answers 503 "not granted yet". Wait for that, as a user would try again.
    await expect.poll(async () => (await owner.request.get(`/api/v1/products/${productId}/messages?limit=1`)).status(), { timeout: 90_000, intervals: [2000] }).toBe(200);

    // The owner's domain sees personal data unmasked.
    await owner.goto(`/products/${productId}/messages`);
    const ownerTable = owner.getByTestId("messages");
    await expect(ownerTable.getByRole("row")).toHaveCount(4, { timeout: 60_000 }); // header + 3 records
    await expect(owner.getByTestId("pii-notice")).toHaveText("You see personal data unmasked (your domain owns the product or governance granted your subscription's PII need).");
    await expect(ownerTable).toContainText(`customer2.${run}@example.com`);

    // The subscriber (no PII grant): the same records, the e-mail masked, the rest decoded.
    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}`);
    await consumer.getByRole("link", { name: "Messages", exact: true }).click();
    await expect(consumer).toHaveURL(new RegExp(`/products/${productId}/messages$`));
    const table = consumer.getByTestId("messages");
    await expect(table.getByRole("row")).toHaveCount(4, { timeout: 60_000 });
    await expect(consumer.getByTestId("pii-notice")).toHaveText("Masked for you: email.");
    await expect(table).toContainText("Porto");
    await expect(table).toContainText(`cust-${run}-2`);
    await expect(table).not.toContainText("@example.com");
    const porto = table.getByRole("row").filter({ hasText: "Porto" });
    await porto.getByRole("button").click();
    const decoded = consumer.getByTestId("decoded-value");
    await expect(decoded).toContainText('"email": "[masked]"');
    await expect(decoded).toContainText('"city": "Porto"');
    await expect(consumer.getByText(/^Avro · plain.* · masked: email$/)).toBeVisible();
  });

  test("looks up a key in the latest-state view: the latest value, the e-mail masked for the subscriber", async ({ browser }) => {
    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}/state`);
    // The worker keeps the view: two keys once it has applied the three records.
    await expect(consumer.getByTestId("state-status")).toContainText("2 keys", { timeout: 60_000 });
    await consumer.getByLabel("Key", { exact: true }).fill(`cust-${run}-1`);
    await consumer.getByRole("button", { name: "Look up" }).click();
    const lookup = consumer.getByTestId("state-lookup");
    await expect(lookup).toContainText(`cust-${run}-1 — from partition 0, offset 2`);
    // The latest record for the key wins (Ghent, not Lyon); its e-mail stays masked.
    await expect(lookup.getByTestId("decoded-value")).toContainText('"city": "Ghent"');
    await expect(lookup.getByTestId("decoded-value")).toContainText('"email": "[masked]"');
    await expect(lookup).not.toContainText("@example.com");

    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}/state`);
    await owner.getByLabel("Key", { exact: true }).fill(`cust-${run}-1`);
    await owner.getByRole("button", { name: "Look up" }).click();
    await expect(owner.getByTestId("state-lookup").getByTestId("decoded-value")).toContainText(`"email": "customer1.${run}@example.com"`);
  });

  // Issue 32: an agent with the subscriber's API token reads the same records through the MCP server — the
  // message browser's path over the real broker, masked the same way — and the owner's agent sees them unmasked.
  test("an MCP agent samples the newest records and looks up the key, masked exactly as the browser shows them", async ({ browser, baseURL }) => {
    const agentFor = async (role: "paymentsOwner" | "ordersOwner") => {
      const page = await as(browser, role);
      const created = await page.request.post("/api/v1/tokens", { data: { name: `mcp browse ${run} ${role}`, scopes: ["read"], expiresInDays: 1 } });
      expect(created.status()).toBe(201);
      const { token } = (await created.json()) as { token: string };
      const client = new Client({ name: "e2e-browse-agent", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    };
    const answer = async (client: Client, name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content[0]?.type === "text" ? result.content[0].text : "";
      expect(result.isError ?? false, text).toBe(false);
      return JSON.parse(text) as { records?: { offset: number; value: { value: Record<string, string>; masked: string[] } }[]; piiVisible?: boolean; value?: { value: Record<string, string> } };
    };
    const consumer = await agentFor("paymentsOwner");
    const sample = await answer(consumer, "sample_records", { product: topic, limit: 2 });
    expect(sample.piiVisible).toBe(false);
    // Newest first: the last two of the three records, the e-mail masked as in the browser.
    expect(sample.records?.map((r) => r.value.value)).toEqual([
      { customerId: `cust-${run}-1`, email: "[masked]", city: "Ghent" },
      { customerId: `cust-${run}-2`, email: "[masked]", city: "Porto" },
    ]);
    expect(JSON.stringify(sample)).not.toContain("@example.com");
    const latest = await answer(consumer, "lookup_latest_state", { product: topic, key: `cust-${run}-1` });
    expect(latest.value?.value).toEqual({ customerId: `cust-${run}-1`, email: "[masked]", city: "Ghent" });
    const owner = await agentFor("ordersOwner");
    const own = await answer(owner, "sample_records", { product: topic, limit: 1 });
    expect(own.records?.[0]?.value.value.email).toBe(`customer1.${run}@example.com`);
    await consumer.close();
    await owner.close();
  });
});
