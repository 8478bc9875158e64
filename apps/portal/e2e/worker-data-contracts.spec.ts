import {
  AvroDeserializer,
  AvroSerializer,
  CelExecutor,
  FieldEncryptionExecutor,
  RuleRegistry,
  SchemaRegistryClient,
  SerdeType,
  SerializationError,
  type RuleAction,
  type RuleContext,
} from "@confluentinc/schemaregistry";
import { expect, type APIRequestContext, type Browser } from "@playwright/test";
import { Kafka, logLevel, type Producer } from "kafkajs";
import { issuedCredentials } from "./credentials";
import { test } from "./fixtures";
import { storageFor, type Role } from "./roles";

/*
 * Issue 29 with Confluent's own client, @confluentinc/schemaregistry 1.10,
 * against the portal's /api/schema-registry and the real worker and broker
 * (KAPPA_E2E_WORKER=1): the product's data-quality rule, approved in the
 * portal, reaches the serializer as the version's ruleSet; a record that
 * breaks an ERROR rule is refused by the serializer, and with the rule's
 * action DLQ it lands in `<topic>.dlq` with the rule's name.
 *
 * The JavaScript client ships the CEL executors but no DLQ action (Confluent's
 * Java client has one): a producer registers one. This one follows the Java
 * DlqAction's contract — the topic from the rule's `dlq.topic` parameter, the
 * rule's name and mode in `__rule.*` headers, then the serializer's error, so
 * the application knows the record did not go to the product topic. The
 * product page's DLQ panel then shows the owners that record with its rule, and
 * an owner redrives it from there: it lands in the product topic once. Then
 * the owner edits the rule on the product page, tests it against the topic's
 * newest records and submits it for review.
 */

const run = Date.now().toString(36);
const schema = JSON.stringify({
  type: "record",
  name: `OrderTotal${run}`,
  namespace: "example.orders",
  fields: [
    { name: "orderId", type: "string" },
    { name: "totalCents", type: "long" },
  ],
});

async function api(browser: Browser, role: Role): Promise<APIRequestContext> {
  const context = await browser.newContext({ storageState: storageFor(role) });
  return context.request;
}

async function json<T>(response: Awaited<ReturnType<APIRequestContext["get"]>>, status = 200): Promise<T> {
  expect(response.status(), await response.text()).toBe(status);
  return (await response.json()) as T;
}

function kafka(bootstrap: string, username: string, password: string): Kafka {
  return new Kafka({ clientId: `kappa-e2e-${username}`, brokers: bootstrap.split(","), sasl: { mechanism: "scram-sha-512", username, password }, logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 200 } });
}

/** Confluent's DLQ action, as its Java client defines it, for the JavaScript client. */
class DlqAction implements RuleAction {
  constructor(private readonly producer: Producer) {}
  configure(): void {}
  type(): string {
    return "DLQ";
  }
  async run(ctx: RuleContext, msg: unknown, err: Error): Promise<void> {
    const topic = ctx.getParameter("dlq.topic");
    if (!topic) throw new SerializationError(`rule ${ctx.rule.name} has no dlq.topic`);
    await this.producer.send({
      topic,
      messages: [
        {
          value: JSON.stringify(msg),
          headers: { "__rule.name": ctx.rule.name, "__rule.mode": ctx.ruleMode, "__rule.subject": ctx.subject, "__rule.topic": ctx.topic, "__rule.exception": err.message },
        },
      ],
    });
    throw new SerializationError(`rule ${ctx.rule.name} failed: the record went to ${topic}`);
  }
  close(): void {}
}

/** An orders product (one partition, an Avro schema) registered by its owner, approved by governance and ACTIVE once the worker provisioned it. */
async function activeOrdersProduct(owner: APIRequestContext, reviewer: APIRequestContext, p: { name: string; description: string; classification: string; schema: string }): Promise<{ id: string; topicName: string }> {
  const me = await json<{ memberships: { domainId: string; domainSlug: string }[] }>(await owner.get("/api/v1/me"));
  const product = await json<{ id: string; topicName: string }>(
    await owner.post("/api/v1/products", {
      data: {
        domainId: me.memberships.find((m) => m.domainSlug === "orders")?.domainId,
        name: p.name,
        description: p.description,
        classification: p.classification,
        tags: ["orders"],
        freshnessSeconds: 60,
        availabilityPct: 99.9,
        partitions: 1,
        contactEmail: "owner@orders.example",
        schema: { format: "AVRO", definition: p.schema },
      },
    }),
    201,
  );
  await json(await owner.post(`/api/v1/products/${product.id}/submit`));
  await json(await reviewer.post(`/api/v1/products/${product.id}/approve`, { data: { comment: `${p.name}.` } }));
  await expect.poll(async () => (await json<{ status: string }>(await owner.get(`/api/v1/products/${product.id}`))).status, { timeout: 90_000 }).toBe("ACTIVE");
  return product;
}

test.describe.serial("data contracts enforced by Confluent's serializer", () => {
  test.setTimeout(300_000);

  test("an ERROR rule refuses a negative total; with DLQ the record lands in <topic>.dlq with the rule's name, and a redrive puts it back once; the edited rule, tested against the topic's newest records, goes to review", async ({ browser, baseURL }) => {
    const owner = await api(browser, "ordersOwner");
    const reviewer = await api(browser, "reviewer");
    const product = await activeOrdersProduct(owner, reviewer, { name: `Order Totals ${run}`, description: "Order totals for the data-contract journey.", classification: "INTERNAL", schema });

    // A rule that does not compile is refused with where it is.
    const broken = await owner.put(`/api/v1/products/${product.id}/rules`, { data: { rules: [{ name: "broken", kind: "CEL", expression: "message.totalCents >=", mode: "WRITE", onFailure: "ERROR" }], reason: "Try a broken rule." } });
    expect(broken.status()).toBe(400);
    expect(JSON.stringify(await broken.json())).toMatch(/Does not compile at line 1, column \d+/);

    // The rule through review: requested by the owner, approved by governance.
    const setRule = async (onFailure: "ERROR" | "DLQ") => {
      const requested = await json<{ changeRequestId: string }>(
        await owner.put(`/api/v1/products/${product.id}/rules`, {
          data: { rules: [{ name: "non-negative-total", description: "A total is never below zero.", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure }], reason: `Negative totals: ${onFailure}.` },
        }),
        202,
      );
      await json(await reviewer.post(`/api/v1/change-requests/${requested.changeRequestId}/approve`));
    };
    await setRule("ERROR");

    const domains = await json<{ slug: string; serviceAccounts: { id: string; name: string; isProducer: boolean }[] }[]>(await owner.get("/api/v1/my-domains"));
    const account = domains.find((d) => d.slug === "orders")?.serviceAccounts.find((a) => a.isProducer);
    expect(account).toBeDefined();
    const password = (await issuedCredentials(owner, account?.id ?? "")).password;
    const client = new SchemaRegistryClient({ baseURLs: [`${baseURL}/api/schema-registry`], basicAuthCredentials: { credentialsSource: "USER_INFO", userInfo: `${account?.name}:${password}` } });
    // The Kafka the e2e run starts: the embedded broker or Apache Kafka's three nodes (playwright.config.ts).
    const bootstrap = process.env.KAPPA_E2E_KAFKA_BOOTSTRAP ?? "";
    const producer = kafka(bootstrap, account?.name ?? "", password).producer();
    await producer.connect();
    try {
      const rules = new RuleRegistry();
      rules.registerExecutor(new CelExecutor());
      rules.registerAction(new DlqAction(producer));
      const serializer = () => new AvroSerializer(client, SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false }, rules);

      // ERROR: the serializer refuses the record, names the rule; a valid one goes through.
      await expect(serializer().serialize(product.topicName, { orderId: `o-${run}-1`, totalCents: -500 })).rejects.toThrow(/rule non-negative-total failed/);
      const valid = await serializer().serialize(product.topicName, { orderId: `o-${run}-2`, totalCents: 1250 });
      expect(valid[0]).toBe(0);
      await producer.send({ topic: product.topicName, messages: [{ value: valid }] });

      // DLQ: once approved, the worker provisions <topic>.dlq and the record lands there with the rule's name.
      await setRule("DLQ");
      const dlq = `${product.topicName}.dlq`;
      const rule = await json<{ rules: { onFailure: string }[]; dlqTopic: string }>(await owner.get(`/api/v1/products/${product.id}/rules`));
      expect(rule).toMatchObject({ rules: [{ onFailure: "DLQ" }], dlqTopic: dlq });
      await expect
        .poll(async () => (await json<{ provisioning: { status: string }[] }>(await owner.get(`/api/v1/products/${product.id}`))).provisioning.every((t) => t.status === "DONE"), { timeout: 90_000 })
        .toBe(true);
      // A fresh client: the first one cached the version with its ERROR rule.
      const fresh = new SchemaRegistryClient({ baseURLs: [`${baseURL}/api/schema-registry`], basicAuthCredentials: { credentialsSource: "USER_INFO", userInfo: `${account?.name}:${password}` } });
      const dlqSerializer = new AvroSerializer(fresh, SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false }, rules);
      await expect(dlqSerializer.serialize(product.topicName, { orderId: `o-${run}-3`, totalCents: -1 })).rejects.toThrow(/went to .*\.dlq/);

      // The owning domain reads its dead letters through its producer account.
      const consumer = kafka(bootstrap, account?.name ?? "", password).consumer({ groupId: `${account?.name}.dlq-e2e-${run}` });
      await consumer.connect();
      const dead: { value: string; rule: string }[] = [];
      try {
        await consumer.subscribe({ topics: [dlq], fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no record in the DLQ after 60 s")), 60_000);
          void consumer
            .run({
              eachMessage: async ({ message }) => {
                dead.push({ value: message.value?.toString() ?? "", rule: message.headers?.["__rule.name"]?.toString() ?? "" });
                clearTimeout(timer);
                resolve();
              },
            })
            .catch(reject);
        });
      } finally {
        await consumer.disconnect();
      }
      expect(dead).toEqual([{ value: JSON.stringify({ orderId: `o-${run}-3`, totalCents: -1 }), rule: "non-negative-total" }]);
    } finally {
      await producer.disconnect();
    }

    // The DLQ panel: the owners read the dead letter with the rule it failed (once the worker grants the portal's
    // reader the DLQ); a member of the domain, governance and admins get nothing.
    for (const role of ["ordersMember", "reviewer", "admin"] as const) {
      expect((await (await api(browser, role)).get(`/api/v1/products/${product.id}/dlq`)).status(), role).toBe(403);
    }
    await expect
      .poll(async () => {
        const page = await owner.get(`/api/v1/products/${product.id}/dlq`);
        return page.ok() ? ((await page.json()) as { records: { rule: string }[] }).records.map((r) => r.rule) : [`HTTP ${page.status()}`];
      }, { timeout: 90_000 })
      .toEqual(["non-negative-total"]);
    const context = await browser.newContext({ storageState: storageFor("ordersOwner") });
    const page = await context.newPage();
    await page.goto(`/products/${product.id}#live`);
    const panel = page.getByTestId("dlq-panel");
    await expect(panel).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText(`Dead-letter topic · ${product.topicName}.dlq`)).toBeVisible();
    await expect(panel.getByTestId("dlq-record")).toHaveCount(1);
    await expect(panel.getByTestId("dlq-rule")).toHaveText("non-negative-total");
    await expect(panel.getByTestId("decoded-value")).toContainText('"totalCents": -1');
    await expect(panel.getByTestId("dlq-count")).toHaveText("1");

    // Redrive: the owner ticks the dead letter, previews it and sends it back (INTERNAL: no second person);
    // the worker serializes it with the product's schema and it lands in the product topic once.
    await panel.getByTestId("dlq-select").check();
    await panel.getByRole("button", { name: "Redrive selected (1)" }).click();
    const dialog = page.getByTestId("redrive-dialog");
    await expect(dialog.getByTestId("redrive-preview-count")).toContainText(`1 dead letter would go back to ${product.topicName}`);
    await expect(dialog.getByTestId("redrive-preview-record")).toContainText('"totalCents": -1');
    await dialog.getByLabel(/What was fixed/).fill("Totals are checked before checkout now.");
    await dialog.getByRole("button", { name: "Redrive 1" }).click();
    await expect(dialog).toBeHidden();
    await expect(panel.getByTestId("redrive-request")).toContainText("DONE", { timeout: 90_000 });
    await expect(panel.getByTestId("redrive-progress")).toHaveText("1 sent of 1");
    type Page = { records: { offset: string; value: { value: unknown }; headers: { key: string; value: { text: string | null } | null }[] }[] };
    await expect
      .poll(async () => {
        const browsed = await owner.get(`/api/v1/products/${product.id}/messages?partition=0&offset=0`);
        const records = browsed.ok() ? ((await browsed.json()) as Page).records : [];
        return records.filter((r) => r.headers.some((h) => h.key === "kappa.redriven-from")).map((r) => ({ value: r.value.value, from: r.headers.find((h) => h.key === "kappa.redriven-from")?.value?.text, rule: r.headers.some((h) => h.key.startsWith("__rule.")) }));
      }, { timeout: 60_000 })
      .toEqual([{ value: { orderId: `o-${run}-3`, totalCents: -1 }, from: `${product.topicName}.dlq/0/0`, rule: false }]);
    // Each dead letter goes back at most once: asking again is refused.
    const again = await owner.post(`/api/v1/products/${product.id}/dlq/redrive`, { data: { selection: { kind: "records", records: [{ partition: 0, offset: 0 }] } } });
    expect(again.status()).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("NOTHING_TO_REDRIVE");

    // The rules editor and its test button: the owner edits the rule, tests it unsaved against the topic's newest
    // records (now 1250 and the redriven −1), sees the failing record as the message browser shows it to them, and
    // submits the change for review. A member of the domain and governance may not run the test.
    for (const role of ["ordersMember", "reviewer"] as const) {
      expect((await (await api(browser, role)).post(`/api/v1/products/${product.id}/rules/test`, { data: { rules: [] } })).status(), role).toBe(403);
    }
    await page.goto(`/products/${product.id}#schema`);
    const editor = page.getByTestId("rules-editor");
    await expect(editor).toBeVisible({ timeout: 60_000 });
    const expression = editor.getByLabel("Expression (CEL)");
    await expect(expression).toHaveValue("message.totalCents >= 0");
    await expression.fill("message.totalCents >= (0");
    await editor.getByRole("button", { name: "Test against the newest records" }).click();
    await expect(expression).toHaveAttribute("aria-invalid", "true");
    await expect(editor.getByText(/Does not compile at line 1, column \d+/)).toBeVisible();
    await expression.fill("message.totalCents >= 0 && message.totalCents < 1000000");
    await editor.getByRole("button", { name: "Test against the newest records" }).click();
    const tested = page.getByTestId("rule-test-result");
    await expect(tested.getByTestId("rule-test-summary")).toHaveText("2 of the newest 2 records evaluated; 1 fail at least one rule.");
    await expect(tested.getByTestId("rule-test-row")).toHaveText([/non-negative-total\s*1\s*1\s*0/]);
    await expect(tested.getByTestId("rule-test-record")).toHaveCount(1);
    await expect(tested.getByTestId("rule-test-record-rules")).toHaveText("non-negative-total");
    await expect(tested.getByTestId("decoded-value")).toContainText('"totalCents": -1');
    await editor.getByLabel("Why do the rules change?").fill("Totals above a million cents are typos.");
    await editor.getByRole("button", { name: "Submit for review" }).click();
    await expect(editor.getByText(/Submitted: governance reviews the change/)).toBeVisible();
    const changes = (await json<{ changeRequests: { kind: string; status: string; payload: { to: { expression: string }[] } }[] }>(await owner.get(`/api/v1/products/${product.id}`))).changeRequests;
    expect(changes.filter((c) => c.kind === "QUALITY_RULES" && c.status === "REQUESTED").map((c) => c.payload.to.map((r) => r.expression))).toEqual([["message.totalCents >= 0 && message.totalCents < 1000000"]]);
    await context.close();

    // Governance reviews the change with its diff and what it would do to the newest records (counts only: a
    // reviewer may not read the data) — both records evaluated, the −1 failing the proposed rule as the current one.
    const review = await browser.newContext({ storageState: storageFor("reviewer") });
    const reviewPage = await review.newPage();
    await reviewPage.goto("/review");
    const row = reviewPage.getByTestId("review-change").filter({ hasText: product.topicName });
    await expect(row).toContainText("data-quality rules 1 → 1");
    await expect(row.getByTestId("review-rules")).toContainText("changed non-negative-total");
    await expect(row.getByTestId("review-rules")).toContainText("message.totalCents >= 0 && message.totalCents < 1000000");
    await row.getByRole("button", { name: /Evaluate the proposed rules on the newest records/ }).click();
    const impact = row.getByTestId("rules-impact");
    await expect(impact).toContainText("Of the 2 newest records evaluated, the proposed rules would keep 1 (50.0 %) off the topic", { timeout: 30_000 });
    await expect(impact.getByRole("row", { name: /non-negative-total/ })).toContainText("1 of 2 (50.0 %)");
    await expect(impact).not.toContainText("-1");
    await review.close();

    // Clients cannot bring their own rules: a registration with a ruleSet is refused.
    const forged = await owner.post(`/api/schema-registry/subjects/${product.topicName}-value/versions`, {
      headers: { authorization: `Basic ${Buffer.from(`${account?.name}:${password}`).toString("base64")}`, "content-type": "application/vnd.schemaregistry.v1+json" },
      data: { schema, ruleSet: { domainRules: [{ name: "allow-all", kind: "CONDITION", mode: "WRITE", type: "CEL", expr: "true" }] } },
    });
    expect(forged.status()).toBe(403);
    expect((await forged.json()) as { error_code: number }).toMatchObject({ error_code: 40301 });
  });

  test("field-level encryption: the PII field is ciphertext on the broker, the PII-approved subscriber decrypts it, one without PII approval reads ciphertext; the message browser decrypts it for the owners only (audited); forged KEK and DEK writes are refused; retiring the product destroys its DEKs", async ({ browser, baseURL }) => {
    const owner = await api(browser, "ordersOwner");
    const reviewer = await api(browser, "reviewer");
    const payments = await api(browser, "paymentsOwner");
    const registry = `${baseURL}/api/schema-registry`;
    const piiSchema = JSON.stringify({
      type: "record",
      name: `CustomerOrder${run}`,
      namespace: "example.orders",
      fields: [
        { name: "orderId", type: "string" },
        { name: "customerId", type: "string", pii: true },
        { name: "totalCents", type: "long" },
      ],
    });
    const product = await activeOrdersProduct(owner, reviewer, { name: `Customer Orders ${run}`, description: "Orders with the customer, for the field-encryption journey.", classification: "CONFIDENTIAL", schema: piiSchema });
    const subject = `${product.topicName}-value`;

    // The owners opt in; governance reviews it like any rule change. Until then no ENCRYPT rule is served.
    const served = async () => (await json<{ ruleSet: { domainRules: { type: string; tags?: string[]; params?: Record<string, string>; onFailure: string }[] } }>(await owner.get(`/api/schema-registry/subjects/${subject}/versions/latest`))).ruleSet.domainRules;
    expect(await served()).toEqual([]);
    const ownerPage = await (await browser.newContext({ storageState: storageFor("ordersOwner") })).newPage();
    await ownerPage.goto(`/products/${product.id}#schema`);
    const editor = ownerPage.getByTestId("rules-editor");
    await editor.getByLabel("Encrypt the fields classified as PII").check({ timeout: 60_000 });
    await editor.getByLabel("Why do the rules change?").fill("Customer ids are personal data.");
    await editor.getByRole("button", { name: "Submit for review" }).click();
    await expect(editor.getByText(/Submitted: governance reviews the change/)).toBeVisible();
    await ownerPage.context().close();
    expect(await served()).toEqual([]);
    const reviewPage = await (await browser.newContext({ storageState: storageFor("reviewer") })).newPage();
    await reviewPage.goto("/review");
    const change = reviewPage.getByTestId("review-change").filter({ hasText: `Customer Orders ${run}` });
    await expect(change.getByTestId("review-encryption")).toContainText("Turns on field-level encryption of the fields classified as PII");
    await change.getByRole("button", { name: `Approve change to Customer Orders ${run}` }).click();
    await expect(change).toHaveCount(0);
    await reviewPage.context().close();
    expect((await json<{ encryptPii: boolean }>(await owner.get(`/api/v1/products/${product.id}/rules`))).encryptPii).toBe(true);
    expect(await served()).toEqual([
      expect.objectContaining({ type: "ENCRYPT", tags: ["PII"], onFailure: "ERROR,NONE", params: expect.objectContaining({ "encrypt.kek.name": "kappa-orders", "encrypt.kms.type": "local-kms" }) }),
    ]);

    // Two payments accounts: one subscription approved for PII (owners, then governance), one without.
    const paymentsDomain = (await json<{ slug: string; id: string }[]>(await payments.get("/api/v1/my-domains"))).find((d) => d.slug === "payments");
    const subscriber = async (name: string, pii: boolean) => {
      const account = await json<{ id: string; name: string }>(await payments.post("/api/v1/service-accounts", { data: { domainId: paymentsDomain?.id, name } }), 201);
      const subscription = await json<{ id: string }>(
        await payments.post("/api/v1/subscriptions", {
          data: { productId: product.id, serviceAccountId: account.id, purpose: "Bill customers for their orders.", ...(pii ? { piiNeeded: true, piiJustification: "Invoices name the customer." } : {}) },
        }),
        201,
      );
      await json(await owner.post(`/api/v1/subscriptions/${subscription.id}/approve`));
      if (pii) await json(await reviewer.post(`/api/v1/subscriptions/${subscription.id}/approve-pii`));
      await expect.poll(async () => (await json<{ status: string }>(await payments.get(`/api/v1/subscriptions/${subscription.id}`))).status, { timeout: 90_000 }).toBe("ACTIVE");
      return { ...account, subscriptionId: subscription.id, password: (await issuedCredentials(payments, account.id)).password };
    };
    const plain = await subscriber(`payments-nopii-${run}`, false);

    const domains = await json<{ slug: string; serviceAccounts: { id: string; name: string; isProducer: boolean }[] }[]>(await owner.get("/api/v1/my-domains"));
    const producerAccount = domains.find((d) => d.slug === "orders")?.serviceAccounts.find((a) => a.isProducer);
    const producerName = producerAccount?.name ?? "";
    const producerPassword = (await issuedCredentials(owner, producerAccount?.id ?? "")).password;
    const clientOf = (user: string, password: string) => new SchemaRegistryClient({ baseURLs: [registry], basicAuthCredentials: { credentialsSource: "USER_INFO", userInfo: `${user}:${password}` } });
    // Each serde gets its own executor: the executor is bound to the client it was first configured with.
    const encrypting = () => {
      const rules = new RuleRegistry();
      rules.registerExecutor(new FieldEncryptionExecutor());
      return rules;
    };

    // The producer: its serializer asks the registry for a DEK (generated there: the KEK is shared) and encrypts customerId.
    const record = { orderId: `o-${run}-pii`, customerId: `customer-${run}@example.com`, totalCents: 4200 };
    const value = await new AvroSerializer(clientOf(producerName, producerPassword), SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false }, encrypting()).serialize(product.topicName, { ...record }); // (the serializer encrypts the object it is given in place)
    const bootstrap = process.env.KAPPA_E2E_KAFKA_BOOTSTRAP ?? "";
    const producer = kafka(bootstrap, producerName, producerPassword).producer();
    await producer.connect();
    await producer.send({ topic: product.topicName, messages: [{ value }] });
    await producer.disconnect();

    // Raw on the broker, as the subscriber without PII approval fetches it: the order id in clear, the customer nowhere.
    const consumer = kafka(bootstrap, plain.name, plain.password).consumer({ groupId: `${plain.name}.encryption-e2e` });
    await consumer.connect();
    let raw: Buffer = Buffer.alloc(0);
    try {
      await consumer.subscribe({ topics: [product.topicName], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no record after 60 s")), 60_000);
        void consumer
          .run({
            eachMessage: async ({ message }) => {
              raw = message.value ?? Buffer.alloc(0);
              clearTimeout(timer);
              resolve();
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    expect(raw.includes(record.orderId)).toBe(true);
    expect(raw.includes(record.customerId)).toBe(false);
    expect(raw.includes("customer-")).toBe(false);

    // The message browser says the field is encrypted; payments (no PII grant yet) sees it masked, the owners decrypted —
    // on the server, counted in the page's audit event.
    type Browsed = { records: { value: { value: Record<string, unknown>; note: string | null } }[] };
    const browse = async (who: APIRequestContext) => {
      let page: Browsed = { records: [] };
      await expect
        .poll(async () => {
          const response = await who.get(`/api/v1/products/${product.id}/messages?partition=0&offset=0`);
          if (response.ok()) page = (await response.json()) as Browsed;
          return page.records.length;
        }, { timeout: 60_000 })
        .toBe(1);
      return page.records[0]?.value;
    };
    const masked = await browse(payments);
    expect(masked?.value.customerId).toBe("[masked]");
    expect(masked?.note).toContain("Encrypted in the log: customerId");
    const clear = await browse(owner);
    expect(clear?.value).toEqual(record);
    expect(clear?.note).toContain("Encrypted in the log: customerId — decrypted for you (audited).");
    const browsed = await json<{ items: { action: string; actorEmail: string; data: { decryptedFields?: number } }[] }>(await reviewer.get(`/api/v1/audit-events?entityType=DataProduct&entityId=${product.id}&action=product.messages-browsed&pageSize=100`));
    expect(browsed.items.filter((e) => e.action === "product.messages-browsed").map((e) => [e.actorEmail, e.data.decryptedFields])).toEqual(expect.arrayContaining([["owner@orders.example", 1], ["owner@payments.example", 0]]));

    const entitled = await subscriber(`payments-pii-${run}`, true);

    // Deserializers as consumers configure them by default (the writer's schema by id, with its subject's rules).
    const read = (user: string, password: string) => new AvroDeserializer(clientOf(user, password), SerdeType.VALUE, {}, encrypting()).deserialize(product.topicName, raw) as Promise<typeof record>;
    expect(await read(entitled.name, entitled.password)).toEqual(record);
    // Without PII approval the registry gives the DEK without its key material; the rule's read action is NONE: ciphertext.
    const unentitled = await read(plain.name, plain.password);
    expect(unentitled.orderId).toBe(record.orderId);
    expect(unentitled.customerId).not.toBe(record.customerId);
    expect(Buffer.from(unentitled.customerId, "base64").length).toBeGreaterThan(record.customerId.length);

    // The DEK Registry API itself: key material for the entitled only; a forged KEK or DEK write is refused.
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`, "content-type": "application/vnd.schemaregistry.v1+json" });
    const dekPath = `/api/schema-registry/dek-registry/v1/keks/kappa-orders/deks/${subject}/versions/1?algorithm=AES256_GCM&deleted=true`;
    const dekFor = async (user: string, password: string) => {
      const response = await owner.get(dekPath, { headers: basic(user, password) });
      return { status: response.status(), body: (await response.json()) as { keyMaterial?: string; encryptedKeyMaterial?: string; error_code?: number } };
    };
    expect((await dekFor(entitled.name, entitled.password)).body.keyMaterial).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const withheld = await dekFor(plain.name, plain.password);
    expect(withheld.status).toBe(200);
    expect(withheld.body.keyMaterial).toBeUndefined();
    expect(withheld.body.encryptedKeyMaterial).toBeTruthy();
    const kek = await owner.get("/api/schema-registry/dek-registry/v1/keks/kappa-orders?deleted=false", { headers: basic(plain.name, plain.password) });
    expect(await kek.json()).toMatchObject({ name: "kappa-orders", kmsType: "local-kms", kmsKeyId: "kappa/orders", shared: true });
    const forgedKek = await owner.post("/api/schema-registry/dek-registry/v1/keks", { headers: basic(producerName, producerPassword), data: { name: "kappa-orders", kmsType: "local-kms", kmsKeyId: "mine", shared: false } });
    expect(forgedKek.status()).toBe(403);
    const deks = `/api/schema-registry/dek-registry/v1/keks/kappa-orders/deks/${subject}`;
    const ownKey = await owner.post(deks, { headers: basic(producerName, producerPassword), data: { subject, version: 1, algorithm: "AES256_GCM", encryptedKeyMaterial: Buffer.alloc(60, 7).toString("base64") } });
    expect(ownKey.status()).toBe(403);
    expect(((await ownKey.json()) as { message: string }).message).toMatch(/generated by the registry/);
    const byConsumer = await owner.post(deks, { headers: basic(entitled.name, entitled.password), data: { subject, version: 1, algorithm: "AES256_GCM" } });
    expect(byConsumer.status()).toBe(403);
    expect(((await dekFor(entitled.name, entitled.password)).body.keyMaterial ?? "").length).toBeGreaterThan(0);
    const audit = await json<{ items: { action: string }[] }>(await reviewer.get(`/api/v1/audit-events?entityType=DataProduct&entityId=${product.id}&pageSize=100`));
    expect(audit.items.map((e) => e.action)).toEqual(expect.arrayContaining(["registry.dek-created", "registry.dek-released"]));

    // Crypto-shredding: retiring the product (subscriptions revoked, deprecated, retired early) destroys its DEKs — the
    // retirement card says so first; afterwards even the producer account, which still sees the retired subject, gets none.
    for (const id of [entitled.subscriptionId, plain.subscriptionId]) await json(await owner.post(`/api/v1/subscriptions/${id}/revoke`, { data: { reason: "The product retires." } }));
    await json(await owner.post(`/api/v1/products/${product.id}/deprecate`, { data: { reason: "Replaced by the billing view.", sunsetAt: new Date(Date.now() + 60 * 86_400_000).toISOString() } }));
    const context = await browser.newContext({ storageState: storageFor("ordersOwner") });
    const page = await context.newPage();
    await page.goto(`/products/${product.id}`);
    await expect(page.getByTestId("retirement-shredding")).toContainText("can never be decrypted again, by anyone. This cannot be undone.", { timeout: 60_000 });
    await context.close();
    expect((await dekFor(producerName, producerPassword)).body.keyMaterial).toBeTruthy();
    await json(await owner.post(`/api/v1/products/${product.id}/retire`, { data: { reason: "Nobody reads it any more." } }));
    const gone = await dekFor(producerName, producerPassword);
    expect(gone).toMatchObject({ status: 404, body: { error_code: 40470 } });
    const shredded = await new AvroDeserializer(clientOf(producerName, producerPassword), SerdeType.VALUE, {}, encrypting()).deserialize(product.topicName, raw) as typeof record;
    expect(shredded.customerId).not.toBe(record.customerId);
    await expect(read(entitled.name, entitled.password)).rejects.toThrow();
    const after = await json<{ items: { action: string }[] }>(await reviewer.get(`/api/v1/audit-events?entityType=DataProduct&entityId=${product.id}&pageSize=100`));
    expect(after.items.map((e) => e.action)).toContain("product.keys-destroyed");
    const retirement = await json<{ retirement: { keysDestroyed: number } }>(await owner.get(`/api/v1/products/${product.id}/retirement`));
    expect(retirement.retirement.keysDestroyed).toBe(1);
  });
});
