import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext } from "@playwright/test";
import { AUTHORIZATION_MATRIX, CALLERS, type Caller, type Fixtures } from "./authorization-matrix";
import { withDb } from "./db";
import { test } from "./fixtures";
import { storageFor, type Role } from "./roles";

/*
 * Runs the authorization matrix (e2e/authorization-matrix.ts) against the real
 * portal: every route and method, as every kind of caller, each on a fresh
 * fixture where the call changes state. A missing entry fails the unit test
 * src/authorization-matrix.test.ts.
 */

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const ROLE_OF: Record<Exclude<Caller, "anonymous">, Role> = { otherDomain: "paymentsOwner", member: "ordersMember", owner: "ordersOwner", reviewer: "reviewer", admin: "admin" };
const FIXTURE_SCHEMA = JSON.stringify({ type: "record", name: "Fixture", fields: [{ name: "id", type: "string" }] });
const COMPATIBLE_SCHEMA = JSON.stringify({ type: "record", name: "Fixture", fields: [{ name: "id", type: "string" }, { name: "note", type: ["null", "string"], default: null }] });
const BREAKING_SCHEMA = JSON.stringify({ type: "record", name: "Fixture", fields: [{ name: "id", type: "long" }] });
const contexts = new Map<Caller, APIRequestContext>();
let fixtures: Fixtures;
let counter = 0;
const run = Date.now().toString(36);

async function created(response: Awaited<ReturnType<APIRequestContext["post"]>>, what: string): Promise<string> {
  if (!response.ok()) throw new Error(`fixture ${what}: ${response.status()} ${await response.text()}`);
  // Most answers are the row; a webhook's is { webhook, secret }.
  const body = (await response.json()) as { id?: string; webhook?: { id: string } };
  const id = body.id ?? body.webhook?.id;
  if (!id) throw new Error(`fixture ${what}: no id in the answer`);
  return id;
}

test.beforeAll(async ({ playwright, baseURL }) => {
  // A new connection for every request: these contexts live through the whole matrix, and a
  // caller's connection can sit idle while other callers build fixtures for seconds. Reused after
  // 5 s, it races the server's keep-alive timeout (Node's default), which closes it as the request
  // is sent: a CI run failed here with "read ECONNRESET" after a 5.4 s test.
  const extraHTTPHeaders = { Connection: "close" };
  contexts.set("anonymous", await playwright.request.newContext({ baseURL, extraHTTPHeaders }));
  for (const [caller, role] of Object.entries(ROLE_OF) as [Exclude<Caller, "anonymous">, Role][]) {
    contexts.set(caller, await playwright.request.newContext({ baseURL, extraHTTPHeaders, storageState: storageFor(role) }));
  }
  const ids = await withDb(async (c) => ({
    orders: (await c.query<{ id: string }>(`SELECT id FROM "Domain" WHERE slug = 'orders'`)).rows[0]!.id,
    payments: (await c.query<{ id: string }>(`SELECT id FROM "Domain" WHERE slug = 'payments'`)).rows[0]!.id,
    orderEvents: (await c.query<{ id: string }>(`SELECT id FROM "DataProduct" WHERE name = 'Order Events'`)).rows[0]!.id,
  }));
  const as = (caller: Exclude<Caller, "anonymous">) => contexts.get(caller)!;
  const unique = () => `${run}-${++counter}`;
  let sharedCluster: Promise<{ id: string; environment: string }> | undefined;
  let brokerNodes = 0;
  // One cluster per run (nothing listens on it: the matrix never waits for the worker).
  const matrixCluster = () =>
    (sharedCluster ??= (async () => {
      const environment = `mxc${unique().replace(/[^a-z0-9]/g, "").slice(-20)}`;
      return { id: await created(await as("admin").post("/api/v1/clusters", { data: { environment, bootstrap: "127.0.0.1:1", securityProtocol: "PLAINTEXT" } }), "cluster"), environment };
    })());
  const draftProduct = async () => {
    const u = unique();
    return created(
      await as("owner").post("/api/v1/products", {
        data: {
          domainId: ids.orders,
          name: `Matrix Fixture ${u}`,
          description: "A fixture of the authorization matrix.",
          classification: "INTERNAL",
          tags: [],
          freshnessSeconds: 60,
          availabilityPct: 99.9,
          partitions: 1,
          contactEmail: "owner@orders.example",
          schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "Fixture", fields: [{ name: "id", type: "string" }] }) },
        },
      }),
      "draft product",
    );
  };
  const inReviewProduct = async () => {
    const id = await draftProduct();
    await created(await as("owner").post(`/api/v1/products/${id}/submit`), "submit");
    return id;
  };
  // "zz": listed after the demo's accounts, which other specs pick first.
  const paymentsAccount = async () => created(await as("otherDomain").post("/api/v1/service-accounts", { data: { domainId: ids.payments, name: `payments-zz-matrix-${unique()}` } }), "payments account");
  // Subscriptions go to a product of the matrix's own, so other specs' lists of
  // Order Events subscribers and of payments' accounts stay as they expect.
  const activeProduct = async () => {
    const id = await inReviewProduct();
    await created(await as("reviewer").post(`/api/v1/products/${id}/approve`), "approve");
    // Standing in for the worker, which activates a product once provisioned.
    await withDb((c) => c.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [id]));
    return id;
  };
  const subscribable = await activeProduct();
  const requestedSubscription = async () =>
    created(await as("otherDomain").post("/api/v1/subscriptions", { data: { productId: subscribable, serviceAccountId: await paymentsAccount(), purpose: "A fixture of the authorization matrix." } }), "subscription");
  const newWebhook = async (description: string) =>
    created(await as("owner").post(`/api/v1/domains/${ids.orders}/webhooks`, { data: { url: `https://hooks.example.com/fixture/${unique()}`, description, kinds: [] } }), "webhook");
  let sharedWebhook: Promise<string> | undefined;
  const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
  const approve = async (id: string) => {
    await created(await as("owner").post(`/api/v1/subscriptions/${id}/approve`), "approve subscription");
    return id;
  };
  const subscribe = async (productId: string, extra: Record<string, unknown> = {}) => {
    const account = await paymentsAccount();
    const id = await created(
      await as("otherDomain").post("/api/v1/subscriptions", { data: { productId, serviceAccountId: account, purpose: "A fixture of the authorization matrix.", ...extra } }),
      "subscription",
    );
    return { id, account };
  };
  const accountName = async (id: string) => withDb(async (c) => (await c.query<{ name: string }>(`SELECT name FROM "ServiceAccount" WHERE id = $1`, [id])).rows[0]!.name);
  // Standing in for the worker's cluster scan: an unmanaged topic no product owns.
  const unmanagedTopic = async () => {
    const topic = `legacy.matrix-${unique()}`;
    await withDb((c) => c.query(`INSERT INTO "ClusterTopic" (name, "productId", partitions, "observedAt") VALUES ($1, NULL, 1, now())`, [topic]));
    return topic;
  };
  // Standing in for the worker's alert evaluator: a freshness alert firing on the matrix's own product.
  const firingAlert = async () => {
    const id = `matrix-alert-${unique()}`;
    await withDb((c) => c.query(`INSERT INTO "Alert" (id, kind, "productId", threshold, value, "peakValue", status, message) VALUES ($1, 'FRESHNESS', $2, 60, 600, 600, 'FIRING', 'Matrix fixture: the newest record is 600 s old.')`, [id, subscribable]));
    return id;
  };
  const silencedAlert = async () => {
    const id = await firingAlert();
    await withDb((c) =>
      c.query(
        `INSERT INTO "AlertSilence" (key, kind, "productId", "alertId", until, "silencedById") SELECT $1, 'FRESHNESS', $2, $3, now() + interval '1 day', m."userId" FROM "Membership" m WHERE m."domainId" = $4 AND m.role = 'OWNER' LIMIT 1
         ON CONFLICT (key) DO UPDATE SET "alertId" = EXCLUDED."alertId", until = EXCLUDED.until`,
        [`FRESHNESS:${subscribable}`, subscribable, id, ids.orders],
      ),
    );
    return id;
  };
  const claim = async () => {
    const topic = await unmanagedTopic();
    const id = await created(await as("owner").post("/api/v1/cluster/topics/claim", { data: { topic, ...productFields(`Matrix Claim ${unique()}`) } }), "claim");
    await created(await as("owner").post(`/api/v1/products/${id}/submit`), "submit claim");
    return { id, topic };
  };
  const productFields = (name: string) => ({
    domainId: ids.orders,
    name,
    description: "A fixture of the authorization matrix.",
    classification: "INTERNAL",
    tags: [],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.example",
    schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "Fixture", fields: [{ name: "id", type: "string" }] }) },
  });
  // A compacted ACTIVE product of orders with one APPROVED payments subscription and one key in its latest-state view (shared: its entries only read it).
  let compacted: Promise<string> | undefined;
  const compactedProduct = async () => {
    const id = await created(await as("owner").post("/api/v1/products", { data: { ...productFields(`Matrix State ${unique()}`), cleanupPolicy: "compact", keyFields: ["id"] } }), "compacted product");
    await created(await as("owner").post(`/api/v1/products/${id}/submit`), "submit");
    await created(await as("reviewer").post(`/api/v1/products/${id}/approve`), "approve");
    // Standing in for the worker: activated, and the view holds key "k1" (Avro {id: "k1"}).
    await withDb(async (c) => {
      await c.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [id]);
      await c.query(`INSERT INTO "StateEntry" ("productId", key, value, partition, "offset", timestamp) VALUES ($1, $2, $3, 0, 0, now())`, [id, Buffer.from("k1"), Buffer.from([4, 0x6b, 0x31])]);
    });
    await approve((await subscribe(id)).id);
    return id;
  };
  const freshDomain = async () => created(await as("admin").post("/api/v1/domains", { data: { slug: `mx-${unique()}`, name: `Matrix Domain ${unique()}`, description: "A fixture of the authorization matrix." } }), "domain");
  // A fresh person in orders (added by an admin): an account without a password, as SSO users have.
  const ordersPerson = async () => {
    const response = await as("admin").post(`/api/v1/domains/${ids.orders}/members`, { data: { email: `matrix-${unique()}@people.example`, role: "MEMBER" } });
    if (!response.ok()) throw new Error(`fixture member: ${response.status()} ${await response.text()}`);
    return ((await response.json()) as { userId: string }).userId;
  };
  // The registry's view of the matrix's subscribable product: its subject and the global id of its schema.
  const registry = await withDb(async (c) => {
    const row = (await c.query<{ topicName: string; schemaId: number }>(`SELECT p."topicName", v."schemaId" FROM "DataProduct" p JOIN "SchemaVersion" v ON v."productId" = p.id WHERE p.id = $1 AND v.status = 'APPROVED'`, [subscribable])).rows[0]!;
    return { subject: `${row.topicName}-value`, schemaId: row.schemaId };
  });
  const pendingSchemaVersion = async () => {
    const productId = await activeProduct();
    const response = await as("owner").post(`/api/v1/products/${productId}/schema-versions`, { data: { definition: COMPATIBLE_SCHEMA } });
    if (!response.ok()) throw new Error(`fixture schema version: ${response.status()} ${await response.text()}`);
    const body = (await response.json()) as { id: string; fingerprint: string };
    return { id: body.id, fingerprint: body.fingerprint };
  };
  // A DEK as the registry writes one: the KEK through the API (the platform makes it on first use), the row directly.
  const registryDek = async () => {
    const kek = await as("owner").get("/api/schema-registry/dek-registry/v1/keks/kappa-orders");
    if (!kek.ok()) throw new Error(`fixture kek: ${kek.status()} ${await kek.text()}`);
    await withDb((c) =>
      c.query(
        `INSERT INTO "RegistryDek" (id, "kekId", "productId", subject, version, algorithm, "encryptedKeyMaterial") SELECT 'matrix-dek', k.id, $1, $2, 1, 'AES256_GCM', 'bm90LWEta2V5' FROM "RegistryKek" k WHERE k.name = 'kappa-orders' ON CONFLICT DO NOTHING`,
        [subscribable, registry.subject],
      ),
    );
  };
  const productWithDek = async () => {
    const id = await activeProduct();
    await registryDek();
    await withDb((c) =>
      c.query(
        `INSERT INTO "RegistryDek" (id, "kekId", "productId", subject, version, algorithm, "encryptedKeyMaterial") SELECT $1, k.id, p.id, p."topicName" || '-value', 1, 'AES256_GCM', 'bm90LWEta2V5' FROM "RegistryKek" k, "DataProduct" p WHERE k.name = 'kappa-orders' AND p.id = $2`,
        [`matrix-dek-${unique()}`, id],
      ),
    );
    return id;
  };
  fixtures = {
    registry,
    registryDek,
    productWithDek,
    schemas: { current: FIXTURE_SCHEMA, compatible: COMPATIBLE_SCHEMA, breaking: BREAKING_SCHEMA },
    pendingSchemaVersion,
    supersededSubscription: async () => {
      const productId = await activeProduct();
      const { id } = await subscribe(productId);
      await approve(id);
      const successor = await created(await as("owner").post(`/api/v1/products/${productId}/major-version`, { data: { definition: BREAKING_SCHEMA, sunsetAt: inAWeek(), reason: "A breaking change of the id." } }), "major version");
      // Standing in for review and the worker: the successor is live.
      await withDb((c) => c.query(`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE id = $1`, [successor]));
      return id;
    },
    compactedProduct: async () => (compacted ??= compactedProduct()),
    replayableSubscription: async () => {
      const { id, account } = await subscribe(subscribable);
      await approve(id);
      return { id, group: `${await accountName(account)}.matrix-replay` };
    },
    piiSubscription: async () => approve((await subscribe(subscribable, { piiNeeded: true, piiJustification: "Matching refunds needs the customer e-mail." })).id),
    quotaClassProduct: async () => {
      const id = await activeProduct();
      const asked = await as("owner").put(`/api/v1/products/${id}/quota-class`, { data: { quotaClass: "bulk", reason: "A fixture of the authorization matrix." } });
      if (asked.status() !== 200) throw new Error(`quota class fixture: ${asked.status()} ${await asked.text()}`);
      return id;
    },
    quotaClassSubscription: async () => approve((await subscribe(subscribable, { quotaClass: "bulk", quotaClassReason: "A fixture of the authorization matrix." })).id),
    changeRequest: async () => {
      const id = await activeProduct();
      return created(await as("owner").post(`/api/v1/products/${id}/partitions`, { data: { partitions: 2, reason: "More parallel consumers." } }), "change request");
    },
    unmanagedTopic,
    firingAlert,
    silencedAlert,
    claimedProduct: async () => (await claim()).id,
    claimedTopic: async () => (await claim()).topic,
    freshDomain,
    archivedDomain: async () => {
      const id = await freshDomain();
      await created(await as("admin").post(`/api/v1/domains/${id}/archive`), "archive domain");
      return id;
    },
    ordersPerson,
    registeredCluster: async () => (await matrixCluster()).id,
    clusterEnvironment: async () => (await matrixCluster()).environment,
    downBroker: async () => {
      const clusterId = (await matrixCluster()).id;
      const nodeId = ++brokerNodes;
      await withDb((c) => c.query(`INSERT INTO "ClusterBroker" ("clusterId", "nodeId", address, "lastSeenAt", "downSince") VALUES ($1, $2, $3, now(), now())`, [clusterId, nodeId, `127.0.0.1:${19400 + nodeId}`]));
      return { clusterId, nodeId };
    },
    inReviewPromotion: async () => {
      const productId = await activeProduct();
      return created(await as("owner").post(`/api/v1/products/${productId}/promote`, { data: { environment: (await matrixCluster()).environment } }), "promotion");
    },
    ssoMapping: async () => created(await as("admin").post("/api/v1/sso/group-mappings", { data: { group: `matrix-${unique()}`, domainId: ids.orders, role: "MEMBER" } }), "group mapping"),
    reservedPrincipal: async () => created(await as("admin").post("/api/v1/reserved-principals", { data: { name: `matrix-reserved-${unique()}`, match: "EXACT", reason: "Reserved by the authorization matrix." } }), "reserved principal"),
    contract: (name) => {
      const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
      return readFileSync(path.join(REPO_ROOT, "examples", "contracts", "orders.returns.odcs.yaml"), "utf8")
        .replaceAll("orders.returns", `orders.${slug}`)
        .replaceAll("Returns", name);
    },
    productFields,
    deprecatedProduct: async () => {
      const id = await activeProduct();
      await created(await as("owner").post(`/api/v1/products/${id}/deprecate`, { data: { reason: "Replaced by v2.", sunsetAt: inAWeek() } }), "deprecate");
      return id;
    },
    ordersWebhook: async () => (sharedWebhook ??= newWebhook("matrix fixture")),
    disposableWebhook: async () => {
      await withDb((c) => c.query(`DELETE FROM "WebhookEndpoint" WHERE description = 'matrix disposable'`));
      return newWebhook("matrix disposable");
    },
    ownerToken: async () => created(await as("owner").post("/api/v1/tokens", { data: { name: `fixture ${unique()}`, scopes: ["read"], expiresInDays: 1 } }), "token"),
    policySource: async () => ((await (await as("owner").get("/api/v1/policies/current")).json()) as { source: string }).source,
    as,
    ids: { ...ids, subscribable },
    unique,
    draftProduct,
    inReviewProduct,
    activeProduct,
    paymentsAccount,
    ordersAccount: async () => created(await as("owner").post("/api/v1/service-accounts", { data: { domainId: ids.orders, name: `orders-fx-${unique()}` } }), "orders account"),
    requestedSubscription,
    approvedSubscription: async () => approve(await requestedSubscription()),
    derivedProduct: async () => {
      const productId = await draftProduct();
      // Standing in for a statement Flink planned (the matrix runs without Flink) and the worker's observation of its job.
      await withDb((c) =>
        c.query(`INSERT INTO "DerivedProduct" ("productId", statement, "jobId", "jobState", "updatedAt") VALUES ($1, 'SELECT 1', 'a1b2c3d4e5f60718293a4b5c6d7e8f90', 'RUNNING', now())`, [productId]),
      );
      return productId;
    },
    activeDerivedProduct: async (options) => {
      const productId = await activeProduct();
      // As the worker leaves a deployed job (or one it stopped with a savepoint for a pause).
      await withDb((c) =>
        c.query(
          `INSERT INTO "DerivedProduct" ("productId", statement, "jobId", "jobState", "jobPausedAt", "jobSavepointPath", "updatedAt") VALUES ($1, 'SELECT 1', 'a1b2c3d4e5f60718293a4b5c6d7e8f90', $2, $3, $4, now())`,
          options?.paused ? [productId, "PAUSED", new Date(), "file:/tmp/savepoints/savepoint-a1b2c3-matrix"] : [productId, "RUNNING", null, null],
        ),
      );
      return productId;
    },
    failedTask: async () => {
      const productId = await draftProduct();
      // Standing in for the worker: a step that failed for good.
      return withDb(async (c) => {
        const id = `matrix-task-${unique()}`;
        await c.query(
          `INSERT INTO "ProvisioningTask" (id, kind, payload, "entityType", "entityId", step, status, attempts, "lastError", "updatedAt") VALUES ($1, 'CREATE_TOPIC', '{}', 'DataProduct', $2, 1, 'FAILED', 10, 'broker down', now())`,
          [id, productId],
        );
        return id;
      });
    },
  };
});

test.afterAll(async () => {
  for (const c of contexts.values()) await c.dispose();
  // The matrix's clusters go again, so later specs see the single-environment product page.
  await withDb((c) => c.query(`DELETE FROM "Cluster" WHERE environment LIKE 'mx%' AND NOT "primary"`));
});

for (const [key, entry] of Object.entries(AUTHORIZATION_MATRIX)) {
  const [method, route] = key.split(" ") as [string, string];
  test(`${method} ${route}`, async () => {
    for (const caller of CALLERS) {
      const call = await entry.request(fixtures, caller);
      const response = await contexts.get(caller)!.fetch(call.path, {
        method,
        maxRedirects: 0,
        ...(call.form ? { form: call.form } : call.body !== undefined ? { data: call.body } : {}),
      });
      const text = await response.text();
      expect.soft(response.status(), `${caller}: ${method} ${call.path} → ${text.slice(0, 300)}`).toBe(entry.expect[caller]);
      const check = entry.outcome;
      const outcome = check?.expect[caller];
      if (check && outcome !== undefined && response.ok()) expect.soft(check.of(JSON.parse(text)), `${caller}: ${method} ${call.path} outcome → ${text.slice(0, 300)}`).toBe(outcome);
    }
  });
}
