import { expect, type Page } from "@playwright/test";
import { Kafka, logLevel } from "kafkajs";
import { issuedCredentials } from "./credentials";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Operating the mesh with the real worker (project `worker` on the embedded
 * broker, `worker-apache` on the 3-node Apache Kafka cluster). What
 * e2e/operate.spec.ts and e2e/recertification.spec.ts do by writing the
 * worker's rows, the worker does here:
 *
 * 1. A topic made by hand on the cluster (the admin client, as a team would
 *    have before the mesh) with JSON records: the worker's cluster scan lists
 *    it as unmanaged, the orders owner claims it, a platform admin allows
 *    sampling, the worker infers its JSON Schema from the records, governance
 *    approves, and the worker adopts the topic — records kept, the orders
 *    producer writes with its issued credentials.
 * 2. A subscription to it that reads with its issued credentials; the policy
 *    turns on recertification's auto-revoke, the subscription's last
 *    certification is put 400 days back (the only write standing in for
 *    time), and the worker's recertification sweep revokes it: the page says
 *    so and the credentials read no more.
 *
 * playwright.config.ts runs the cluster scan every 5 s and the sweep every
 * 3 s here (WORKER_CLUSTER_SCAN_MS, WORKER_RECERTIFICATION_MS).
 */

const run = Date.now().toString(36);
const topic = `legacy.scans-${run}`;
const bootstrap = (process.env.KAPPA_E2E_KAFKA_BOOTSTRAP ?? "").split(",");
const records = Array.from({ length: 6 }, (_, i) => ({ key: `scan-${i}`, value: JSON.stringify({ scanId: `scan-${i}`, depot: `DEP-${i % 2}`, weightGrams: 100 + i }) }));

function kafka(username: string, password: string): Kafka {
  return new Kafka({ clientId: `kappa-e2e-${username}`, brokers: bootstrap, sasl: { mechanism: "scram-sha-512", username, password }, logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 200 } });
}

const platformAdmin = () => kafka("kappa-admin", "kappa-dev-secret");

/** Records on the topic now (sum of the partitions' high watermarks), asked as the platform's admin. */
async function recordCount(): Promise<number> {
  const admin = platformAdmin().admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads the topic from the beginning with the given credentials in group `group`:
 * the number of records read (stopping at `expected`) within 20 s, the Kafka error's type when the
 * cluster refuses (e.g. TOPIC_AUTHORIZATION_FAILED), or another failure's message.
 */
async function readAs(username: string, password: string, group: string, expected: number): Promise<{ read: number } | { refused: string } | { failed: string }> {
  const consumer = kafka(username, password).consumer({ groupId: group });
  let read = 0;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 20_000);
      consumer.on(consumer.events.CRASH, (e) => {
        clearTimeout(timer);
        reject(e.payload.error);
      });
      void consumer
        .run({
          eachMessage: async () => {
            read++;
            if (read >= expected) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
    return { read };
  } catch (error) {
    // kafkajs wraps what the broker answered in retry errors: the first Kafka error type on the chain.
    for (let e = error as { type?: string; cause?: unknown; originalError?: unknown } | undefined; e; e = (e.originalError ?? e.cause) as typeof e) {
      if (e.type && e.type !== "UNKNOWN") return { refused: e.type };
    }
    // Anything else (a coordinator moving, a broker not yet knowing the grant): the caller polls again.
    return { failed: error instanceof Error ? error.message : String(error) };
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
}

async function domainId(page: Page, slug: string): Promise<string> {
  const me = (await (await page.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
  const id = me.memberships.find((m) => m.domainSlug === slug)?.domainId;
  expect(id, `the signed-in user owns no domain "${slug}"`).toBeTruthy();
  return id ?? "";
}

let productId = "";

test.describe.serial("operating with the real worker: claim with schema inference, recertification's auto-revoke", () => {
  test.setTimeout(180_000);

  test("an unmanaged topic with JSON records is found by the cluster scan, claimed with the inferred schema, approved and adopted with its records", async ({ browser }) => {
    const admin = platformAdmin().admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })).toBe(true);
    } finally {
      await admin.disconnect();
    }
    const byHand = platformAdmin().producer();
    await byHand.connect();
    await byHand.send({ topic, messages: records });
    await byHand.disconnect();

    // The worker's cluster scan lists it as unmanaged, with its records. A scan may have run between the topic's
    // creation and the records' write (it then lists the topic with 0 records); the next one counts them.
    const owner = await as(browser, "ordersOwner");
    await owner.goto("/cluster");
    const row = owner.locator(`[data-testid="cluster-topic"][data-topic="${topic}"]`);
    await expect(async () => {
      await owner.reload();
      await expect(row).toContainText("unmanaged", { timeout: 2_000 });
      await expect(row.getByTestId("topic-records")).toHaveText(String(records.length), { timeout: 2_000 });
    }).toPass({ timeout: 60_000, intervals: [1_000] });

    await row.getByRole("link", { name: `Claim ${topic} as data product` }).click();
    await expect(owner.getByRole("heading", { level: 1 })).toContainText(topic);
    await expect(owner.getByLabel("Partitions")).toHaveValue("2");
    await owner.getByLabel("Description").fill("Every parcel scan of the legacy depot scanners, now a governed product.");
    // Until a platform admin allows sampling, the claim needs a schema typed in.
    await owner.getByRole("radio", { name: "Avro" }).check();
    await owner.getByLabel("Definition").fill(JSON.stringify({ type: "record", name: "Scan", fields: [{ name: "scanId", type: "string" }] }));
    await owner.getByRole("button", { name: "Claim topic" }).click();
    await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname));
    productId = new URL(owner.url()).pathname.split("/").pop() ?? "";

    const platform = await as(browser, "admin");
    await platform.goto(`/cluster/claim?topic=${encodeURIComponent(topic)}`);
    await platform.getByTestId("claim-sampling").getByRole("button", { name: "Allow the claim's owners to sample" }).click();
    await expect(platform.getByTestId("claim-sampling")).toContainText("Its owners may infer the schema from sample records (approved");

    // The worker reads the records and infers a JSON Schema; the form shows it.
    await owner.goto(`/products/${productId}/edit`);
    const inference = owner.getByTestId("schema-inference");
    await inference.getByRole("button", { name: "Infer from sample records" }).click();
    await expect(inference).toContainText(`Schema prefilled below: JSON Schema from ${records.length} sampled records.`, { timeout: 60_000 });
    await expect(inference).toContainText(`Inferred from ${records.length} JSON records`);
    await expect(owner.getByRole("radio", { name: "JSON Schema" })).toBeChecked();
    const inferred = JSON.parse(await owner.getByLabel("Definition").inputValue()) as { properties: Record<string, { type: string }>; required: string[] };
    expect(Object.keys(inferred.properties).sort()).toEqual(["depot", "scanId", "weightGrams"]);
    expect(inferred.properties.scanId?.type).toBe("string");
    expect(inferred.required.sort()).toEqual(["depot", "scanId", "weightGrams"]);
    await owner.getByRole("button", { name: "Save changes" }).click();
    await owner.waitForURL((url) => url.pathname === `/products/${productId}`);
    await owner.getByRole("button", { name: "Submit for review" }).click();
    await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");

    const reviewer = await as(browser, "reviewer");
    await reviewer.goto(`/products/${productId}`);
    await reviewer.getByRole("button", { name: "Approve", exact: true }).click();

    // The worker adopts the topic: ACTIVE, the inferred schema on the page, the records still there.
    await owner.reload();
    await expect(owner.getByTestId("product-status")).toHaveText("ACTIVE", { timeout: 60_000 });
    await expect(owner.getByLabel("Schema definition")).toContainText('"weightGrams"');
    await expect(owner.getByLabel("Schema definition")).toContainText('"scanId"');
    expect(await recordCount()).toBe(records.length);

    // The orders producer writes to it with its issued credentials (the worker granted WRITE on approval).
    const domains = (await (await owner.request.get("/api/v1/my-domains")).json()) as { slug: string; serviceAccounts: { id: string; isProducer: boolean }[] }[];
    const producerAccount = domains.find((d) => d.slug === "orders")?.serviceAccounts.find((a) => a.isProducer);
    expect(producerAccount).toBeDefined();
    const { username, password } = await issuedCredentials(owner.request, producerAccount?.id ?? "");
    const producer = kafka(username, password).producer();
    await producer.connect();
    try {
      await expect(async () => {
        await producer.send({ topic, messages: [{ key: "scan-new", value: JSON.stringify({ scanId: "scan-new", depot: "DEP-1", weightGrams: 250 }) }] });
      }).toPass({ timeout: 30_000, intervals: [1_000] });
    } finally {
      await producer.disconnect();
    }
    expect(await recordCount()).toBe(records.length + 1);
  });

  test("an overdue subscription is revoked by the worker's recertification sweep when the policy says autoRevoke; its credentials read no more", async ({ browser }) => {
    expect(productId, "needs the claimed product of the test before").not.toBe("");
    const owner = await as(browser, "ordersOwner");
    const payments = await as(browser, "paymentsOwner");
    // Account names start with their domain's slug.
    const account = `payments-scans-${run}`;
    const created = await payments.request.post("/api/v1/service-accounts", { data: { domainId: await domainId(payments, "payments"), name: account } });
    expect(created.status(), await created.text()).toBe(201);
    const accountId = ((await created.json()) as { id: string }).id;
    const requested = await payments.request.post("/api/v1/subscriptions", { data: { productId, serviceAccountId: accountId, purpose: "Match parcel scans to payment disputes." } });
    expect(requested.status(), await requested.text()).toBe(201);
    const subscriptionId = ((await requested.json()) as { id: string }).id;
    expect((await owner.request.post(`/api/v1/subscriptions/${subscriptionId}/approve`)).status()).toBe(200);

    await payments.goto(`/subscriptions/${subscriptionId}`);
    await expect(payments.getByTestId("subscription-status")).toHaveText("ACTIVE", { timeout: 60_000 });
    let password = "";
    await expect
      .poll(
        async () => {
          const r = await payments.request.post(`/api/v1/service-accounts/${accountId}/credentials/reveal`);
          if (r.status() === 200) password = ((await r.json()) as { password: string }).password;
          return r.status();
        },
        { timeout: 60_000, intervals: [1_000] },
      )
      .toBe(200);
    // Until every broker has the new grant, a read may still be refused.
    // A fresh group per attempt, so nothing an attempt committed hides records from the next.
    let attempt = 0;
    const read = () => readAs(account, password, `${account}.recert-${++attempt}`, records.length + 1);
    await expect.poll(read, { timeout: 60_000, intervals: [1_000] }).toEqual({ read: records.length + 1 });

    // Governance turns on auto-revoke (the default policy only announces overdue access); restored afterwards.
    const platform = await as(browser, "admin");
    const original = ((await (await platform.request.get("/api/v1/policies/current")).json()) as { source: string }).source;
    expect(original).toContain("autoRevoke: false");
    const publish = (source: string, reason: string) => platform.request.post("/api/v1/policies", { data: { source, reason } });
    const on = await publish(original.replace("autoRevoke: false", "autoRevoke: true"), `Revoke overdue access (${run})`);
    expect(on.status(), await on.text()).toBe(201);
    try {
      // Standing in for time: certified 400 days ago (INTERNAL is due every 180 days, plus 14 days' grace).
      await withDb((db) => db.query(`UPDATE "Subscription" SET "certifiedAt" = now() - interval '400 days' WHERE id = $1`, [subscriptionId]));

      await expect(async () => {
        await payments.reload();
        await expect(payments.getByTestId("subscription-status")).toHaveText("REVOKED", { timeout: 2_000 });
      }).toPass({ timeout: 60_000, intervals: [1_000] });
      await expect(payments.getByRole("main")).toContainText("the policy revokes overdue access");
    } finally {
      const off = await publish(original, `Back to announcing overdue access (${run})`);
      expect(off.status(), await off.text()).toBe(201);
    }

    // The worker removed the grant: the same credentials are refused.
    await expect.poll(read, { timeout: 60_000, intervals: [1_000] }).toMatchObject({ refused: expect.stringMatching(/AUTHORIZATION_FAILED$/) });
  });
});
