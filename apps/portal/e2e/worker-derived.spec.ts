import { expect, type Page } from "@playwright/test";
import { Kafka, logLevel } from "kafkajs";
import { createProduct } from "./api-setup";
import { issuedCredentials } from "./credentials";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * A derived product (issue 34) in Chromium against the real worker, the
 * embedded broker and a real local Flink session cluster, which `npm start`
 * starts in the embedded-broker worker lane (KAPPA_E2E_FLINK=1, set by
 * `npm run test:e2e:worker`; playwright.config.ts moves Flink's ports off
 * 8081/8083). Setup through the API as other journeys do it: an orders product
 * in JSON (Flink's tables read JSON), approved and provisioned by the worker,
 * and the payments domain's approved subscription to it. Then in the browser:
 * the payments owner declares "Merchant Revenue per Minute" on the publish
 * form, validates it and sees the output schema Flink derives, registers and
 * submits it; the governance reviewer sees the statement, its inputs with
 * their owning domain and the derived schema in the review queue and approves
 * it (four eyes); the worker provisions the topic and deploys the job, which the
 * product page's job panel shows running; orders produced to the input come
 * out of Flink as per-minute windows in the message browser; the owner replays
 * the job from the earliest offsets, sees the worker's progress and the new
 * job, and the recomputed windows appended after the first ones. The job's
 * own service account is neither offered nor accepted as a subscriber (the
 * subscribe form picked it by default before, and its password is never shown).
 */

const flinkGateway = `http://127.0.0.1:${process.env.KAPPA_E2E_FLINK_GATEWAY_PORT}`;
const flinkRest = `http://127.0.0.1:${process.env.KAPPA_E2E_FLINK_PORT}`;

test.skip(process.env.KAPPA_E2E_FLINK !== "1", "needs a local Flink session cluster: only the embedded-broker worker lane (npm run test:e2e:worker, KAPPA_E2E_FLINK=1) starts one");

const run = Date.now().toString(36);
const inputName = `Shop Orders ${run}`;
const derivedName = `Merchant Revenue per Minute ${run}`;
const ORDERS_DOMAIN = "Orders"; // the demo's (prisma/seed.ts)

const ORDER_SCHEMA = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { orderId: { type: "string" }, merchant: { type: "string" }, amount: { type: "number" }, placedAt: { type: "string", format: "date-time" } },
  required: ["orderId", "merchant", "amount", "placedAt"],
});

// Event times in a fixed past: two closed one-minute windows, then an order ten minutes later whose watermark closes them.
const t0 = Date.UTC(2026, 11, 5, 10, 0, 0);
const at = (minute: number, second: number) => new Date(t0 + minute * 60_000 + second * 1_000).toISOString();
const ORDERS = [
  { orderId: "o1", merchant: "m1", amount: 10, placedAt: at(0, 5) },
  { orderId: "o2", merchant: "m2", amount: 7.25, placedAt: at(0, 40) },
  { orderId: "o3", merchant: "m1", amount: 5.5, placedAt: at(0, 20) },
  { orderId: "o4", merchant: "m1", amount: 2, placedAt: at(1, 59) },
  { orderId: "o5", merchant: "m3", amount: 100, placedAt: at(10, 0) },
];
// What Flink must write (computed by hand from ORDERS): the windows the last order's watermark closed.
const WINDOWS = [
  { merchant: "m1", windowStart: "2026-12-05T10:00:00", orders: 2, revenue: 15.5 },
  { merchant: "m2", windowStart: "2026-12-05T10:00:00", orders: 1, revenue: 7.25 },
  { merchant: "m1", windowStart: "2026-12-05T10:01:00", orders: 1, revenue: 2 },
];

async function ok(url: string): Promise<unknown> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** The job panel's fact `term` (its <dd>). */
const fact = (page: Page, term: string) => page.getByTestId("derived-job").locator("dl > div", { has: page.locator("dt", { hasText: new RegExp(`^${term}$`) }) }).locator("dd");

/** The message browser of `productId` until its table holds `count` records (the browser reads once per load). */
async function expectRecords(page: Page, productId: string, count: number): Promise<void> {
  await expect(async () => {
    await page.goto(`/products/${productId}/messages`);
    await expect(page.getByTestId("messages").locator("tbody > tr")).toHaveCount(count, { timeout: 5_000 });
  }).toPass({ timeout: 120_000, intervals: [2_000] });
}

test("a derived product in Chromium on a real Flink: declare with the derived schema, review, watch it run, its records, replay from the earliest offsets", async ({ browser }) => {
  test.setTimeout(600_000);

  await test.step("Flink's SQL Gateway answers and its TaskManager's slots are registered (it starts beside the portal)", async () => {
    await expect
      .poll(async () => Boolean(((await ok(`${flinkGateway}/v3/info`)) as { version?: string } | null)?.version), { message: `Flink's SQL Gateway at ${flinkGateway} did not answer (npm start's log says why)`, timeout: 300_000, intervals: [2_000] })
      .toBe(true);
    await expect.poll(async () => ((await ok(`${flinkRest}/overview`)) as { "slots-total"?: number } | null)?.["slots-total"] ?? 0, { message: `no TaskManager slots at ${flinkRest}`, timeout: 120_000, intervals: [2_000] }).toBeGreaterThan(0);
  });

  const ordersOwner = await as(browser, "ordersOwner");
  const input = await test.step("setup: an orders product in JSON, approved and provisioned; the payments domain's approved subscription to it", async () => {
    const product = await createProduct(ordersOwner, "orders", {
      name: inputName,
      description: "Orders placed in the shop, with merchant, amount and time: the input of a derived product.",
      classification: "INTERNAL",
      freshnessSeconds: 60,
      availabilityPct: 99.5,
      partitions: 1,
      contactEmail: "owner@orders.example",
      schema: { format: "JSON_SCHEMA", definition: ORDER_SCHEMA },
    });
    expect((await ordersOwner.request.post(`/api/v1/products/${product.id}/submit`)).status()).toBe(200);
    const reviewer = await as(browser, "reviewer");
    expect((await reviewer.request.post(`/api/v1/products/${product.id}/approve`, { data: {} })).status()).toBe(200);
    await reviewer.context().close();
    await expect.poll(async () => ((await (await ordersOwner.request.get(`/api/v1/products/${product.id}`)).json()) as { status: string }).status, { timeout: 90_000 }).toBe("ACTIVE");

    const payments = await as(browser, "paymentsOwner");
    const me = (await (await payments.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
    const domainId = me.memberships.find((m) => m.domainSlug === "payments")!.domainId;
    const created = await payments.request.post("/api/v1/service-accounts", { data: { domainId, name: `payments-revenue-${run}` } });
    expect(created.status(), await created.text()).toBe(201);
    const account = (await created.json()) as { id: string };
    const requested = await payments.request.post("/api/v1/subscriptions", { data: { productId: product.id, serviceAccountId: account.id, purpose: "Revenue per merchant per minute, derived in the stream." } });
    expect(requested.status(), await requested.text()).toBe(201);
    const sub = (await requested.json()) as { id: string };
    expect((await ordersOwner.request.post(`/api/v1/subscriptions/${sub.id}/approve`)).status()).toBe(200);
    await payments.context().close();
    return { ...product, paymentsDomainId: domainId };
  });

  const statement = `SELECT merchant, window_start AS windowStart, COUNT(*) AS orders, SUM(amount) AS revenue\nFROM TABLE(TUMBLE(TABLE \`${input.topicName}\`, DESCRIPTOR(placedAt), INTERVAL '1' MINUTE))\nGROUP BY merchant, window_start, window_end`;
  const owner = await as(browser, "paymentsOwner");
  const productId = await test.step("the payments owner declares it on the publish form, validates it with Flink and sees the output schema Flink derives", async () => {
    await owner.goto("/products/new");
    await owner.getByRole("radio", { name: /Derived product \(Flink SQL\)/ }).check();
    await expect(owner.getByTestId("no-flink-gateway")).toHaveCount(0);
    await owner.getByLabel("Domain", { exact: true }).selectOption(input.paymentsDomainId);
    await owner.getByLabel("Name", { exact: true }).fill(derivedName);
    await owner.getByLabel("Description", { exact: true }).fill("Orders and revenue per merchant per minute, computed in the stream by Apache Flink from Shop Orders.");
    await owner.getByLabel("Partitions", { exact: true }).fill("1");
    await owner.getByLabel("Flink SQL statement").fill(statement);
    await owner.getByRole("button", { name: "Validate" }).click();

    const result = owner.getByTestId("derived-result");
    await expect(result).toContainText("Flink plans the statement.", { timeout: 60_000 });
    // The columns Flink's planner derived: name, Flink type, nullability.
    const rows = owner.getByTestId("derived-columns").locator("tbody > tr");
    await expect(rows).toHaveText([/^merchant\s*STRING\s*never$/, /^windowStart\s*TIMESTAMP\(3\)\s*never$/, /^orders\s*BIGINT\s*never$/, /^revenue\s*DOUBLE\s*never$/]);
    await expect(owner.getByTestId("derived-inputs")).toHaveText(input.topicName);
    await result.getByText("Flink's plan").click();
    await expect(owner.getByLabel("Flink's plan")).toContainText("WindowAggregate(groupBy=[merchant], window=[TUMBLE(time_col=[placedAt], size=[1 min])]");

    await owner.getByRole("button", { name: "Register product" }).click();
    await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname) && url.pathname !== "/products/new", { timeout: 60_000 });
    const id = new URL(owner.url()).pathname.split("/").pop()!;
    await owner.getByRole("button", { name: "Submit for review" }).click();
    await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");
    return id;
  });

  await test.step("a governance reviewer approves it in the review queue (four eyes), seeing the statement, the inputs and their owners, the derived schema", async () => {
    const reviewer = await as(browser, "reviewer");
    await reviewer.goto("/review");
    await reviewer.getByTestId("review-product").filter({ hasText: derivedName }).getByRole("link", { name: `Review ${derivedName}` }).click();
    await expect(reviewer.getByTestId("review-statement")).toHaveText(statement);
    await expect(reviewer.getByTestId("review-inputs")).toHaveText(`${input.topicName} (${inputName}), owned by ${ORDERS_DOMAIN}`);
    await expect(reviewer.getByTestId("review-schema")).toContainText('"windowStart"');
    await expect(reviewer.getByTestId("review-schema")).toContainText('"x-flink-type": "TIMESTAMP(3)"');
    await reviewer.getByRole("button", { name: `Approve ${derivedName}` }).click();
    await expect(reviewer.getByText("Decision recorded.")).toBeVisible();
    await reviewer.context().close();
  });

  let firstJobId = "";
  await test.step("the worker provisions the topic and deploys the job: the product page's job panel shows it running", async () => {
    await owner.goto(`/products/${productId}#live`);
    await expect(owner.getByTestId("product-status")).toHaveText("ACTIVE", { timeout: 90_000 });
    await owner.getByTestId("derived-job").scrollIntoViewIfNeeded();
    await expect(owner.getByTestId("job-state")).toHaveText("Running", { timeout: 180_000 });
    await expect(fact(owner, "Job id")).toHaveText(/^[0-9a-f]{32}$/);
    firstJobId = (await fact(owner, "Job id").textContent()) ?? "";
    await expect(fact(owner, "Statement version")).toHaveText("v1");
    await expect(owner.getByLabel("Flink SQL statement")).toHaveText(statement);
  });

  await test.step("the job's own account (the worker's, whose password nobody picks up) is not offered to subscribe with, and is refused as a subscriber", async () => {
    const jobAccountName = `payments-flink-${productId.slice(-10).toLowerCase()}`;
    const domains = (await (await owner.request.get("/api/v1/my-domains")).json()) as { slug: string; serviceAccounts: { id: string; name: string }[] }[];
    const jobAccount = domains.find((d) => d.slug === "payments")!.serviceAccounts.find((a) => a.name === jobAccountName);
    expect(jobAccount, `the worker created the job's account ${jobAccountName}`).toBeDefined();
    // The subscribe form's choices (GET /api/v1/service-accounts): the domain's consumer accounts, without the job's.
    const offered = ((await (await owner.request.get("/api/v1/service-accounts")).json()) as { name: string }[]).map((a) => a.name);
    expect(offered).toContain("payments-reconciliation");
    expect(offered).not.toContain(jobAccountName);
    const refused = await owner.request.post("/api/v1/subscriptions", { data: { productId: input.id, serviceAccountId: jobAccount!.id, purpose: "Read shop orders with the Flink job's own login." } });
    expect(refused.status()).toBe(400);
    expect(((await refused.json()) as { error: { fields: Record<string, string[]> } }).error.fields.serviceAccountId).toEqual(["This account runs a derived product's Flink job and cannot subscribe; choose or create a consumer account."]);
  });

  await test.step("orders produced to the input come out of Flink as per-minute windows in the message browser", async () => {
    const domains = (await (await ordersOwner.request.get("/api/v1/my-domains")).json()) as { slug: string; serviceAccounts: { id: string; isProducer: boolean }[] }[];
    const producerAccount = domains.find((d) => d.slug === "orders")!.serviceAccounts.find((a) => a.isProducer)!;
    const { username, password } = await issuedCredentials(ordersOwner.request, producerAccount.id);
    const kafka = new Kafka({ clientId: `kappa-e2e-derived-${run}`, brokers: process.env.KAPPA_E2E_KAFKA_BOOTSTRAP!.split(","), sasl: { mechanism: "scram-sha-512", username, password }, logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 300 } });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: input.topicName, messages: ORDERS.map((o) => ({ key: o.orderId, value: JSON.stringify(o) })) });
    } finally {
      await producer.disconnect();
    }

    await expectRecords(owner, productId, WINDOWS.length);
    for (const w of WINDOWS) {
      const row = owner.getByTestId("messages").locator("tbody > tr").filter({ hasText: `"merchant":"${w.merchant}"` }).filter({ hasText: `"windowStart":"${w.windowStart}"` });
      await expect(row).toHaveCount(1);
      await expect(row).toContainText(`"orders":${w.orders}`);
      await expect(row).toContainText(`"revenue":${w.revenue}`);
    }
  });

  await test.step("the owner replays the job from the earliest offsets: the worker's progress, the new job, the windows recomputed", async () => {
    await owner.goto(`/products/${productId}#live`);
    await owner.getByTestId("derived-job").scrollIntoViewIfNeeded();
    await expect(owner.getByTestId("job-state")).toHaveText("Running");
    await owner.getByRole("button", { name: "Replay…" }).click();
    const form = owner.getByRole("dialog", { name: "Replay the derived product from an earlier point" });
    await expect(form.getByRole("radio", { name: "their earliest offsets" })).toBeChecked();
    await form.getByRole("button", { name: "Replay", exact: true }).click();
    // The worker's steps as it records them (cancel, start from the earliest offsets, record the new job), then done.
    await expect(owner.getByTestId("job-command")).toHaveText(/^Replay: (Waiting for the worker\.|Cancelling job|Starting the job from the inputs' earliest offsets|Job [0-9a-f]{32} started)/);
    await expect(owner.getByTestId("job-command")).toHaveCount(0, { timeout: 180_000 });
    await expect(owner.getByTestId("job-command-failed")).toHaveCount(0);
    await expect(fact(owner, "Job id")).not.toHaveText(firstJobId);
    await expect(fact(owner, "Job id")).toHaveText(/^[0-9a-f]{32}$/);
    await expect(owner.getByTestId("job-state")).toHaveText("Running", { timeout: 120_000 });
    // The history recomputed from the log: each window once more, after the first ones.
    await expectRecords(owner, productId, 2 * WINDOWS.length);
    for (const w of WINDOWS) {
      await expect(owner.getByTestId("messages").locator("tbody > tr").filter({ hasText: `"merchant":"${w.merchant}"` }).filter({ hasText: `"windowStart":"${w.windowStart}"` })).toHaveCount(2);
    }
  });

  await ordersOwner.context().close();
  await owner.context().close();
});
