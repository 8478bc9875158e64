import { SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";
import { expect, type APIRequestContext, type Browser } from "@playwright/test";
import { Kafka, logLevel } from "kafkajs";
import { issuedCredentials } from "./credentials";
import { test } from "./fixtures";
import { storageFor, type Role } from "./roles";

/*
 * The portal's /api/schema-registry with an unmodified Schema Registry client
 * (@kafkajs/confluent-schema-registry 3.9.0) and the real worker and broker
 * (KAPPA_E2E_WORKER=1): the producer registers the approved schema and gets
 * its id, encodes (magic byte + id), produces; the consumer decodes with the
 * registry. An unapproved schema cannot be registered until governance
 * approves it; the compatibility endpoint agrees with the portal's check.
 */

const run = Date.now().toString(36);
const recordName = `RegistryProbe${run}`;
const avro = (fields: unknown[]) => JSON.stringify({ type: "record", name: recordName, namespace: "example.orders", fields });
const v1 = avro([{ name: "probeId", type: "string" }, { name: "weightGrams", type: "long" }]);
const v2 = avro([{ name: "probeId", type: "string" }, { name: "weightGrams", type: "long" }, { name: "note", type: ["null", "string"], default: null }]);
const breaking = avro([{ name: "probeId", type: "string" }, { name: "weightGrams", type: "string" }]);

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

test.describe.serial("Schema Registry API with the real broker", () => {
  test.setTimeout(300_000);

  test("register the approved schema, encode, produce, consume and decode; unapproved schemas are refused until reviewed", async ({ browser, baseURL }) => {
    const owner = await api(browser, "ordersOwner");
    const reviewer = await api(browser, "reviewer");
    const payments = await api(browser, "paymentsOwner");
    const me = await json<{ memberships: { domainId: string; domainSlug: string }[] }>(await owner.get("/api/v1/me"));
    const product = await json<{ id: string; topicName: string }>(
      await owner.post("/api/v1/products", {
        data: {
          domainId: me.memberships.find((m) => m.domainSlug === "orders")?.domainId,
          name: `Registry Probes ${run}`,
          description: "Probe records for the Schema Registry round trip.",
          classification: "INTERNAL",
          tags: ["orders"],
          freshnessSeconds: 60,
          availabilityPct: 99.9,
          partitions: 1,
          contactEmail: "owner@orders.example",
          schema: { format: "AVRO", definition: v1 },
        },
      }),
      201,
    );
    const subject = `${product.topicName}-value`;
    await json(await owner.post(`/api/v1/products/${product.id}/submit`));
    await json(await reviewer.post(`/api/v1/products/${product.id}/approve`, { data: { comment: "Probe product." } }));
    await expect.poll(async () => (await json<{ status: string }>(await owner.get(`/api/v1/products/${product.id}`))).status, { timeout: 90_000 }).toBe("ACTIVE");

    // The producer: the orders domain's producer account, its Kafka credentials for the registry too.
    const domains = await json<{ slug: string; id: string; serviceAccounts: { id: string; name: string; isProducer: boolean }[] }[]>(await owner.get("/api/v1/my-domains"));
    const producerAccount = domains.find((d) => d.slug === "orders")?.serviceAccounts.find((a) => a.isProducer);
    expect(producerAccount).toBeDefined();
    const producerPassword = (await issuedCredentials(owner, producerAccount?.id ?? "")).password;
    const host = `${baseURL}/api/schema-registry`;
    const producerRegistry = new SchemaRegistry({ host, auth: { username: producerAccount?.name ?? "", password: producerPassword } });

    // The consumer: a new payments account with an approved subscription.
    const paymentsDomain = (await json<{ slug: string; id: string }[]>(await payments.get("/api/v1/my-domains"))).find((d) => d.slug === "payments");
    const account = await json<{ id: string; name: string }>(await payments.post("/api/v1/service-accounts", { data: { domainId: paymentsDomain?.id, name: `payments-sr${run}` } }), 201);
    const subscription = await json<{ id: string }>(await payments.post("/api/v1/subscriptions", { data: { productId: product.id, serviceAccountId: account.id, purpose: "Decode probe records with the registry." } }), 201);
    await json(await owner.post(`/api/v1/subscriptions/${subscription.id}/approve`));
    await expect.poll(async () => (await json<{ status: string }>(await payments.get(`/api/v1/subscriptions/${subscription.id}`))).status, { timeout: 90_000 }).toBe("ACTIVE");
    const consumerPassword = (await issuedCredentials(payments, account.id)).password;
    const consumerRegistry = new SchemaRegistry({ host, auth: { username: account.name, password: consumerPassword } });
    const bootstrap = (await json<{ connection: { bootstrap: string } }>(await payments.get(`/api/v1/subscriptions/${subscription.id}`))).connection.bootstrap;

    // Registering the approved schema returns its global id, the one the portal shows.
    const versions = await json<{ versions: { version: number; schemaId: number | null }[] }>(await owner.get(`/api/v1/products/${product.id}/schema-versions`));
    const v1Id = versions.versions[0]?.schemaId;
    expect(v1Id).toEqual(expect.any(Number));
    const registered = await producerRegistry.register({ type: SchemaType.AVRO, schema: v1 }, { subject });
    expect(registered.id).toBe(v1Id);
    expect(await producerRegistry.getLatestSchemaId(subject)).toBe(v1Id);

    // Not approved: refused, never registered behind governance's back; a breaking one is 409.
    await expect(producerRegistry.register({ type: SchemaType.AVRO, schema: v2 }, { subject })).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/governed/) });
    await expect(producerRegistry.register({ type: SchemaType.AVRO, schema: breaking }, { subject })).rejects.toMatchObject({ status: 409 });
    // A reader may not register at all; a wrong password is 401.
    await expect(consumerRegistry.register({ type: SchemaType.AVRO, schema: v1 }, { subject })).rejects.toMatchObject({ status: 403 });
    const wrong = new SchemaRegistry({ host, auth: { username: account.name, password: "wrong" }, retry: { retries: 0 } });
    await expect(wrong.getLatestSchemaId(subject)).rejects.toMatchObject({ status: 401 });

    // The compatibility endpoint gives the portal's verdict.
    const basic = `Basic ${Buffer.from(`${producerAccount?.name}:${producerPassword}`).toString("base64")}`;
    for (const [schema, compatible] of [[breaking, false], [v2, true]] as const) {
      const sr = await json<{ is_compatible: boolean; messages: string[] }>(
        await owner.post(`/api/schema-registry/compatibility/subjects/${subject}/versions/latest`, { headers: { authorization: basic, "content-type": "application/vnd.schemaregistry.v1+json" }, data: { schema } }),
      );
      const portal = await json<{ compatible: boolean; issues: { message: string }[] }>(await owner.post(`/api/v1/products/${product.id}/schema-versions/check`, { data: { definition: schema } }));
      expect(sr.is_compatible).toBe(compatible);
      expect(portal.compatible).toBe(compatible);
      for (const issue of portal.issues) expect(sr.messages.join("\n")).toContain(issue.message.replaceAll("'", "\\'"));
    }

    // Encode with the registry, produce through the broker, consume and decode with the registry.
    const first = { probeId: `probe-${run}-1`, weightGrams: 1250 };
    const encoded = await producerRegistry.encode(registered.id, first);
    expect(encoded[0]).toBe(0);
    expect(encoded.readInt32BE(1)).toBe(registered.id);
    const producer = kafka(bootstrap, producerAccount?.name ?? "", producerPassword).producer();
    await producer.connect();
    await producer.send({ topic: product.topicName, messages: [{ key: first.probeId, value: encoded }] });

    // v2 through governance: proposed, refused by the registry while pending, registered once approved.
    await json(await owner.post(`/api/v1/products/${product.id}/schema-versions`, { data: { definition: v2 } }), 201);
    await expect(producerRegistry.register({ type: SchemaType.AVRO, schema: v2 }, { subject })).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/waiting for governance review/) });
    const pending = (await json<{ versions: { id: string; version: number; status: string }[] }>(await owner.get(`/api/v1/products/${product.id}/schema-versions`))).versions.find((v) => v.status === "PENDING");
    const review = await json<{ fingerprint: string }>(await reviewer.get(`/api/v1/schema-versions/${pending?.id}`));
    await json(await reviewer.post(`/api/v1/schema-versions/${pending?.id}/approve`, { data: { fingerprint: review.fingerprint } }));
    const v2Registered = await producerRegistry.register({ type: SchemaType.AVRO, schema: v2 }, { subject });
    expect(v2Registered.id).not.toBe(registered.id);
    const second = { probeId: `probe-${run}-2`, weightGrams: 980, note: "fragile" };
    await producer.send({ topic: product.topicName, messages: [{ key: second.probeId, value: await producerRegistry.encode(v2Registered.id, second) }] });
    await producer.disconnect();

    const decoded: unknown[] = [];
    const consumer = kafka(bootstrap, account.name, consumerPassword).consumer({ groupId: `${account.name}.registry-e2e` });
    await consumer.connect();
    await consumer.subscribe({ topics: [product.topicName], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`decoded ${decoded.length} of 2 records in 60 s`)), 60_000);
      void consumer
        .run({
          eachMessage: async ({ message }) => {
            decoded.push(await consumerRegistry.decode(message.value ?? Buffer.alloc(0)));
            if (decoded.length === 2) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();
    expect(decoded).toEqual([first, { probeId: second.probeId, weightGrams: 980, note: "fragile" }]);

    // The reader sees its subject; ids resolve for it.
    const subjects = await json<string[]>(await owner.get("/api/schema-registry/subjects", { headers: { authorization: `Basic ${Buffer.from(`${account.name}:${consumerPassword}`).toString("base64")}` } }));
    expect(subjects).toEqual([subject]);
  });
});
