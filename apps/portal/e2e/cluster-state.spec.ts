import { expect } from "@playwright/test";
import { encryptSecret } from "@kappa/catalog";
import { one, withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/** What the portal shows as the bootstrap address: the e2e broker's (playwright.config.ts). */
const BOOTSTRAP = `127.0.0.1:${process.env.KAPPA_E2E_KAFKA_PORT}`;

/*
 * What the portal shows of the worker's state, checked without a running
 * worker: where a test needs the worker to have done something (a task
 * failed, a topic observed, a password issued) it writes that row itself,
 * marked "stand-in for the worker". The seeded demo data supplies the rest:
 * "Order Events" (APPROVED, tiered storage with a 2 minute hot window, subscribed
 * by payments-reconciliation), "Order Status" and "Payments Captured"
 * (APPROVED), each with its provisioning steps still PENDING.
 */

interface Seeded {
  productId: string;
  topic: string;
  subscriptionId: string;
  accountId: string;
}

async function seeded(productName: string): Promise<Seeded> {
  return withDb((db) =>
    one<Seeded>(
      db,
      `SELECT p.id AS "productId", p."topicName" AS topic, s.id AS "subscriptionId", a.id AS "accountId"
         FROM "DataProduct" p
         LEFT JOIN "Subscription" s ON s."productId" = p.id
         LEFT JOIN "ServiceAccount" a ON a.id = s."serviceAccountId" AND a.name = 'payments-reconciliation'
        WHERE p.name = $1 AND (s.id IS NULL OR a.id IS NOT NULL)
        LIMIT 1`,
      [productName],
    ),
  );
}

test.describe.serial("worker state in the portal (the test stands in for the worker)", () => {
  test("the admin platform view lists the seeded pending tasks; others cannot see it", async ({ browser }) => {
    const admin = await as(browser, "admin");
    await admin.goto("/");
    await admin.getByRole("link", { name: "Platform" }).click();
    await expect(admin).toHaveURL(/\/platform$/);
    const queue = admin.getByTestId("queue");
    for (const [product, step] of [
      ["Order Events", "1. Create topic with its configs"],
      ["Order Events", "3. Grant producer WRITE"],
      ["Payments Captured", "2. Create producer service account"],
      ["Order Status", "1. Create topic with its configs"],
    ]) {
      await expect(queue.locator("tr", { hasText: product }).filter({ hasText: step })).toContainText("PENDING");
    }
    await expect(queue.locator("tr", { hasText: "Order Events ← User:payments-reconciliation" })).toContainText("Grant READ on topic and consumer-group prefix");
    expect(Number(await admin.getByTestId("count-PENDING").textContent())).toBeGreaterThanOrEqual(10);
    await expect(admin.getByText("No worker has reported in.")).toBeVisible();
    await expect(admin.getByText("No full reconcile has run yet.")).toBeVisible();

    const owner = await as(browser, "ordersOwner");
    await owner.goto("/platform");
    await expect(owner.getByText("Only platform admins see the platform view.")).toBeVisible();
    await expect(owner.getByRole("link", { name: "Platform" })).toHaveCount(0);
    expect((await owner.request.get("/api/v1/platform")).status()).toBe(403);
  });

  test("the tiered-storage panel says 'not observed yet', then 'unknown' for what the cluster cannot tell, then the split", async ({ browser }) => {
    const { productId, topic } = await seeded("Order Events");
    const owner = await as(browser, "ordersOwner");
    // The Live section polls only while it is on screen: open the page there.
    await owner.goto(`/products/${productId}#live`);
    const panel = owner.getByTestId("tiered-storage");
    await expect(panel.getByTestId("tiered-enabled")).toHaveText("on");
    await expect(panel).toContainText("2 minutes");
    await expect(panel.getByTestId("local-bytes")).toHaveText("not observed yet");
    await expect(panel.getByTestId("remote-bytes")).toHaveText("not observed yet");
    await expect(panel.getByTestId("replay-window")).toContainText("Not observed yet");
    await expect(owner.getByTestId("throughput-now")).toHaveText("not observed yet");

    // Stand-in for the worker against a cluster without tiered-storage APIs:
    // offsets known, earliest-local offset and remote bytes unknown (NULL).
    const partitions = [0, 1, 2, 3, 4, 5];
    const detail = (earliestLocal: (p: number) => string | null, remote: string | null) =>
      JSON.stringify(partitions.map((p) => ({ partition: p, endOffset: String(100 * (p + 1)), earliestOffset: "0", earliestLocalOffset: earliestLocal(p), latestTieredOffset: null, localBytes: "4096", remoteBytes: remote })));
    await withDb((db) =>
      db.query(
        `INSERT INTO "TopicObservation" (topic, "productId", partitions, "endOffset", "earliestOffset", "earliestLocalOffset", "latestTieredOffset", "localBytes", "remoteBytes", "messagesPerSecond", "partitionDetail", "observedAt")
         VALUES ($1, $2, 6, 2100, 0, NULL, NULL, 24576, NULL, NULL, $3::jsonb, now())`,
        [topic, productId, detail(() => null, null)],
      ),
    );
    try {
      // The page polls; no reload.
      await expect(panel.getByTestId("remote-bytes")).toHaveText("unknown");
      await expect(panel).toContainText("the cluster does not report it");
      await expect(panel.getByTestId("local-bytes")).toHaveText("24.0 KiB");
      await expect(panel.getByTestId("replay-records")).toHaveText("2,100");
      await expect(panel.getByTestId("replay-remote")).toHaveText("unknown");
      await expect(panel).toContainText("the cluster did not report its earliest local offset");
      await panel.getByText("Offsets per partition").click();
      const row0 = panel.getByTestId("replay-partitions").locator("tbody tr").first();
      await expect(row0.locator("td")).toHaveText(["0", "0", "unknown", "unknown", "100"]);
      await expect(owner.getByTestId("throughput-now")).toHaveText("unknown");

      // Stand-in for the worker once segments moved: 40 records per partition only in object storage.
      await withDb(async (db) => {
        await db.query(`UPDATE "TopicObservation" SET "earliestLocalOffset" = 240, "remoteBytes" = 73728, "messagesPerSecond" = 12.5, "partitionDetail" = $2::jsonb, "observedAt" = now() WHERE topic = $1`, [topic, detail(() => "40", "12288")]);
        await db.query(
          `INSERT INTO "TopicObservationSample" (topic, bucket, "endOffset", "earliestOffset", "localBytes", "remoteBytes", "messagesPerSecond")
           SELECT $1, date_trunc('minute', now()) - make_interval(mins => m), 2100 - m * 100, 0, 24576, 73728, 10 + m FROM generate_series(0, 4) AS m`,
          [topic],
        );
      });
      await expect(panel.getByTestId("remote-bytes")).toHaveText("72.0 KiB");
      await expect(panel.getByTestId("storage-bar")).toHaveAttribute("aria-label", "25 % of bytes local, 75 % in object storage");
      await expect(panel.getByTestId("replay-remote")).toHaveText("240 records");
      await expect(row0.locator("td")).toHaveText(["0", "0", "0 – 39", "40 – 99", "100"]);
      await expect(owner.getByTestId("throughput-now")).toHaveText("12.5 msg/s");
      // Charts load as they come near the viewport.
      await owner.getByTestId("throughput-now").scrollIntoViewIfNeeded();
      await expect(owner.getByTestId("throughput-chart")).toBeVisible();
    } finally {
      await withDb(async (db) => {
        await db.query(`DELETE FROM "TopicObservation" WHERE topic = $1`, [topic]);
        await db.query(`DELETE FROM "TopicObservationSample" WHERE topic = $1`, [topic]);
      });
    }
  });

  test("lag: the owner sees every subscriber's lag per partition and state; the consumer sees theirs on the subscription page", async ({ browser }) => {
    const { productId, topic, subscriptionId } = await seeded("Order Events");
    const groupId = "payments-reconciliation.e2e";
    // Stand-in for the worker's observation of the subscriber's consumer group.
    await withDb(async (db) => {
      const detail = [0, 1, 2, 3, 4, 5].map((p) => ({ partition: p, committedOffset: p === 5 ? null : "10", endOffset: p === 0 ? "52" : "10", lag: p === 0 ? "42" : "0" }));
      await db.query(
        `INSERT INTO "ConsumerGroupObservation" ("groupId", topic, "subscriptionId", "serviceAccountId", state, members, "totalLag", "timeLagMs", "partitionDetail", "observedAt")
         SELECT $1, $2, s.id, s."serviceAccountId", 'Stable', 1, 42, 5000, $4::jsonb, now() FROM "Subscription" s WHERE s.id = $3`,
        [groupId, topic, subscriptionId, JSON.stringify(detail)],
      );
      await db.query(
        `INSERT INTO "ConsumerGroupObservationSample" ("groupId", topic, bucket, "totalLag", "timeLagMs")
         SELECT $1, $2, date_trunc('minute', now()) - make_interval(mins => m), 42 + m * 10, 5000 FROM generate_series(0, 3) AS m`,
        [groupId, topic],
      );
    });
    try {
      const owner = await as(browser, "ordersOwner");
      await owner.goto(`/products/${productId}#live`);
      const group = owner.getByTestId("consumer-groups").getByRole("listitem").filter({ hasText: groupId });
      await expect(owner.getByRole("heading", { name: "Subscribers' lag" })).toBeVisible();
      await expect(group).toContainText("Payments · User:payments-reconciliation");
      await expect(group).toContainText("Stable");
      await expect(group.getByTestId("group-lag")).toHaveText("42 messages");
      await expect(group).toContainText("5 s");
      await group.getByText("Lag per partition").click();
      await expect(group.getByTestId("partition-lag").locator("tbody tr").first().locator("td")).toHaveText(["0", "10", "52", "42"]);
      await expect(group.getByTestId("partition-lag").locator("tbody tr").nth(5).locator("td")).toHaveText(["5", "none yet", "10", "0"]);
      await owner.getByRole("heading", { name: "Subscribers' lag" }).scrollIntoViewIfNeeded();
      await expect(owner.getByTestId("lag-chart")).toBeVisible();

      // The consumer finds the subscription from their domain page.
      const consumer = await as(browser, "paymentsOwner");
      await consumer.goto("/my-domain");
      await consumer.getByRole("link", { name: "Order Events", exact: true }).first().click();
      await expect(consumer).toHaveURL(new RegExp(`/subscriptions/${subscriptionId}$`));
      await expect(consumer.getByTestId("subscription-status")).toHaveText("APPROVED");
      await expect(consumer.getByTestId("bootstrap")).toHaveText(BOOTSTRAP);
      const snippet = consumer.getByTestId("snippet");
      // JavaScript first, with the client the platform chose (kafkajs loses acknowledged writes at failover: issue 35).
      await expect(snippet).toContainText("@platformatic/kafka@^1.35.0");
      await expect(snippet).toContainText(`mechanism: "SCRAM-SHA-512"`);
      await expect(snippet).toContainText(`username: "payments-reconciliation"`);
      await expect(snippet).toContainText(`groupId: "payments-reconciliation.my-app"`);
      await expect(snippet).toContainText(`topics: ["${topic}"]`);
      await consumer.getByRole("tab", { name: "kcat" }).click();
      await expect(snippet).toContainText(`kcat -C -b ${BOOTSTRAP}`);
      await expect(snippet).toContainText("sasl.mechanisms=SCRAM-SHA-512");
      await expect(snippet).toContainText(`-G payments-reconciliation.my-app ${topic}`);
      await expect(consumer.getByTestId("consumer-groups")).toContainText(groupId);
      await expect(consumer.getByTestId("group-lag")).toHaveText("42 messages");
      await consumer.getByTestId("group-lag").scrollIntoViewIfNeeded();
      await expect(consumer.getByTestId("lag-chart")).toBeVisible();
      await expect(consumer.getByTestId("credentials")).toContainText("has not issued credentials");

      // Governance may read it; someone with no part in it may not.
      const reviewer = await as(browser, "reviewer");
      expect((await reviewer.request.get(`/api/v1/subscriptions/${subscriptionId}`)).status()).toBe(200);
      const admin = await as(browser, "admin");
      // Issue 30, finding 9: what a caller may not see answers the 404 of an unknown id.
      const refused = await admin.request.get(`/api/v1/subscriptions/${subscriptionId}`);
      expect(refused.status()).toBe(404);
      expect((await refused.json()).error.code).toBe("NOT_FOUND");
    } finally {
      await withDb(async (db) => {
        await db.query(`DELETE FROM "ConsumerGroupObservation" WHERE "groupId" = $1`, [groupId]);
        await db.query(`DELETE FROM "ConsumerGroupObservationSample" WHERE "groupId" = $1`, [groupId]);
      });
    }
  });

  test("credentials are shown once, only to an owner of the account's domain; then rotation can be requested", async ({ browser }) => {
    const { subscriptionId, accountId } = await seeded("Order Events");
    const key = Buffer.from(process.env.KAPPA_SECRETS_KEY ?? "", "hex");
    expect(key.length).toBe(32);
    const password = `e2e-${Date.now().toString(36)}-not-a-real-secret`;
    // Stand-in for the worker issuing SCRAM credentials: the password sealed for one pickup.
    await withDb((db) =>
      db.query(`UPDATE "ServiceAccount" SET "secretCiphertext" = $2, "secretHash" = 'stand-in', "secretIssuedAt" = now() WHERE id = $1`, [accountId, encryptSecret(key, password, accountId)]),
    );

    const otherOwner = await as(browser, "ordersOwner");
    // Another domain's account is not theirs to know of: the 404 of an unknown id (issue 30, finding 9).
    const refused = await otherOwner.request.post(`/api/v1/service-accounts/${accountId}/credentials/reveal`);
    expect(refused.status()).toBe(404);

    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/subscriptions/${subscriptionId}`);
    await consumer.getByRole("button", { name: "Reveal password" }).click();
    const revealed = consumer.getByTestId("revealed-credentials");
    await expect(revealed).toContainText("Shown once");
    await expect(revealed.getByLabel("User name", { exact: true })).toHaveValue("payments-reconciliation");
    await expect(revealed.getByLabel("Password", { exact: true })).toHaveValue(password);

    await consumer.reload();
    await expect(consumer.getByTestId("credentials-shown")).toContainText("already shown once");
    const again = await consumer.request.post(`/api/v1/service-accounts/${accountId}/credentials/reveal`);
    expect(again.status()).toBe(409);
    expect(JSON.stringify(await again.json())).not.toContain(password);
    const audit = await withDb((db) => db.query(`SELECT "actorEmail" FROM "AuditEvent" WHERE action = 'serviceAccount.credentials.revealed' AND "entityId" = $1`, [accountId]));
    expect(audit.rows).toEqual([{ actorEmail: "owner@payments.example" }]);

    await consumer.getByRole("button", { name: "Rotate credentials" }).click();
    // A confirmation first, saying who stops authenticating; nothing is queued until "Rotate now".
    const confirm = consumer.getByRole("alertdialog", { name: "Rotate the password of User:payments-reconciliation?" });
    await expect(confirm).toContainText("consumers of Order Events (orders.order-events.v1)");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    const none = await withDb((db) => db.query(`SELECT 1 FROM "ProvisioningTask" WHERE "entityId" = $1 AND kind = 'ROTATE_SERVICE_ACCOUNT_CREDENTIALS'`, [accountId]));
    expect(none.rowCount).toBe(0);
    await consumer.getByRole("button", { name: "Rotate credentials" }).click();
    await consumer.getByRole("button", { name: "Rotate now" }).click();
    await expect(consumer.getByText("New credentials requested")).toBeVisible();
    await expect(consumer.getByRole("button", { name: "Rotate credentials" })).toHaveCount(0);
    const rotation = await withDb((db) => db.query(`SELECT status FROM "ProvisioningTask" WHERE "entityType" = 'ServiceAccount' AND "entityId" = $1 AND kind = 'ROTATE_SERVICE_ACCOUNT_CREDENTIALS'`, [accountId]));
    expect(rotation.rows).toEqual([{ status: "PENDING" }]);
  });

  test("the product's owners pick up the producer's password on the product page; subscribers do not see it", async ({ browser }) => {
    const { productId } = await seeded("Order Events");
    const key = Buffer.from(process.env.KAPPA_SECRETS_KEY ?? "", "hex");
    const producer = await withDb((db) => one<{ id: string }>(db, `SELECT id FROM "ServiceAccount" WHERE name = 'orders-producer'`));
    const password = `producer-${Date.now().toString(36)}-not-a-real-secret`;
    // Stand-in for the worker issuing the producer's SCRAM credentials.
    await withDb((db) =>
      db.query(`UPDATE "ServiceAccount" SET "secretCiphertext" = $2, "secretHash" = 'stand-in', "secretIssuedAt" = now() WHERE id = $1`, [producer.id, encryptSecret(key, password, producer.id)]),
    );

    const consumer = await as(browser, "paymentsOwner");
    await consumer.goto(`/products/${productId}`);
    await expect(consumer.getByTestId("tiered-storage")).toBeVisible();
    await expect(consumer.getByRole("heading", { name: "Producer access" })).toHaveCount(0);
    await expect(consumer.getByRole("heading", { name: "Your lag" })).toBeVisible();

    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}`);
    const card = owner.locator("section", { has: owner.getByRole("heading", { name: "Producer access" }) });
    await expect(card.getByTestId("snippet")).toContainText(`username: "orders-producer"`);
    await expect(card.getByTestId("snippet")).toContainText("idempotent: true");
    await expect(card.getByRole("tab", { name: "kafkajs" })).toHaveCount(0);
    await card.getByRole("tab", { name: "kcat" }).press("ArrowLeft");
    await expect(card.getByRole("tab", { name: "Python" })).toBeFocused();
    await expect(card.getByTestId("snippet")).toContainText(`"enable.idempotence": True`);
    await card.getByRole("tab", { name: "Java", exact: true }).click();
    await expect(card.getByTestId("snippet")).toContainText("org.apache.kafka:kafka-clients 3.0 or later");
    await card.getByRole("button", { name: "Reveal password" }).click();
    await expect(card.getByLabel("Password", { exact: true })).toHaveValue(password);
    await owner.reload();
    await expect(card.getByTestId("credentials-shown")).toBeVisible();
  });

  test("a failed step shows its error; Retry (owner or admin) re-queues it with an audit event; other domains cannot", async ({ browser }) => {
    const { productId } = await seeded("Order Status");
    const error = "CreateTopics refused: POLICY_VIOLATION (e2e stand-in for the worker)";
    // Stand-in for the worker giving up on step 1 after its maximum attempts.
    const task = await withDb((db) =>
      one<{ id: string }>(db, `UPDATE "ProvisioningTask" SET status = 'FAILED', attempts = 10, "lastError" = $2, "updatedAt" = now() WHERE "entityId" = $1 AND step = 1 RETURNING id`, [productId, error]),
    );

    const stranger = await as(browser, "paymentsOwner");
    const forbidden = await stranger.request.post(`/api/v1/provisioning-tasks/${task.id}/retry`);
    expect(forbidden.status()).toBe(403);
    const untouched = await withDb((db) => one<{ status: string }>(db, `SELECT status FROM "ProvisioningTask" WHERE id = $1`, [task.id]));
    expect(untouched.status).toBe("FAILED");

    const owner = await as(browser, "ordersOwner");
    await owner.goto(`/products/${productId}`);
    await expect(owner.getByText("Step 1 failed")).toBeVisible();
    const step = owner.getByTestId("provisioning-steps").getByRole("listitem").first();
    await expect(step.getByRole("alert")).toHaveText(`Failed: ${error}`);
    await expect(step).toContainText("attempts 10");
    await step.getByRole("button", { name: "Retry step 1: Create topic with its configs" }).click();
    await expect(step).toContainText("PENDING");
    await expect(step.getByTestId("step-error")).toHaveText(`Previous error: ${error}`);
    await expect(owner.getByText("Step 1 failed")).toHaveCount(0);

    const after = await withDb((db) => one<{ status: string; attempts: number; due: boolean }>(db, `SELECT status, attempts, "runAfter" <= now() AS due FROM "ProvisioningTask" WHERE id = $1`, [task.id]));
    // The worker's retryTask restarts the attempt count so the task gets its full
    // set of attempts again; the attempts it had are kept in the audit trail.
    expect(after).toEqual({ status: "PENDING", attempts: 0, due: true });
    const retried = await withDb((db) => db.query(`SELECT "actorEmail", data->>'lastError' AS "lastError" FROM "AuditEvent" WHERE action = 'provisioning.retried' AND data->>'taskId' = $1`, [task.id]));
    expect(retried.rows).toEqual([{ actorEmail: "owner@orders.example", lastError: error }]);

    // The admin retries from the platform view.
    const payments = await seeded("Payments Captured");
    const second = await withDb((db) =>
      one<{ id: string }>(db, `UPDATE "ProvisioningTask" SET status = 'FAILED', attempts = 10, "lastError" = 'SASL authentication failed (e2e stand-in)', "updatedAt" = now() WHERE "entityId" = $1 AND step = 2 RETURNING id`, [payments.productId]),
    );
    const admin = await as(browser, "admin");
    await admin.goto("/platform");
    const row = admin.getByTestId("failed-tasks").locator(`tr[data-task-id="${second.id}"]`);
    await expect(row).toContainText("SASL authentication failed (e2e stand-in)");
    await expect(row).toContainText("Payments Captured");
    await row.getByRole("button", { name: /^Retry / }).click();
    await expect(row).toHaveCount(0);
    await expect(admin.getByTestId("queue").locator(`tr[data-task-id="${second.id}"]`)).toContainText("PENDING");
  });

  test("the clusters page shows a broker that is down, since when, and the outage's end, refreshing by itself", async ({ browser }) => {
    // Stand-in for the worker: a 3-broker cluster it has seen (health/cluster-brokers.ts writes these rows), removed at the end.
    const environment = `brokers-${Date.now().toString(36)}`;
    const clusterId = await withDb(async (db) => {
      const { id } = await one<{ id: string }>(
        db,
        `INSERT INTO "Cluster" (id, environment, "primary", bootstrap, "securityProtocol", "saslMechanism", "lastSeenAt", "updatedAt")
         VALUES ($1, $2, false, '127.0.0.1:19301,127.0.0.1:19302,127.0.0.1:19303', 'PLAINTEXT', 'none', now(), now()) RETURNING id`,
        [`c${Date.now().toString(36)}`, environment],
      );
      for (const node of [1, 2, 3]) await db.query(`INSERT INTO "ClusterBroker" ("clusterId", "nodeId", address, "lastSeenAt") VALUES ($1, $2, $3, now())`, [id, node, `127.0.0.1:1930${node}`]);
      return id;
    });
    try {
      const admin = await as(browser, "admin");
      await admin.goto("/admin/clusters");
      const row = admin.getByTestId("cluster-row").filter({ hasText: environment });
      await expect(row.getByTestId("cluster-brokers")).toHaveText("3 of 3 up");
      await expect(admin.getByTestId("broker-outages")).toHaveCount(0);

      // Stand-in for the worker: node 2 went missing from the metadata. The open page shows it without a reload.
      await withDb(async (db) => {
        await db.query(`UPDATE "ClusterBroker" SET "downSince" = '2026-12-05T10:00:05Z' WHERE "clusterId" = $1 AND "nodeId" = 2`, [clusterId]);
        await db.query(`INSERT INTO "ClusterBrokerOutage" (id, "clusterId", "nodeId", address, "startedAt") VALUES ($1, $2, 2, '127.0.0.1:19302', '2026-12-05T10:00:05Z')`, [`o${Date.now().toString(36)}`, clusterId]);
      });
      await expect(row.getByTestId("cluster-brokers")).toContainText("2 of 3 up", { timeout: 30_000 });
      await expect(row.getByTestId("broker-down")).toHaveText("Broker 2 127.0.0.1:19302 down since 5 Dec 2026, 10:00 UTC");
      const outage = admin.getByTestId("broker-outage").filter({ hasText: environment });
      await expect(outage).toContainText("still down");

      // …and back 27 s later.
      await withDb(async (db) => {
        await db.query(`UPDATE "ClusterBroker" SET "downSince" = NULL WHERE "clusterId" = $1`, [clusterId]);
        await db.query(`UPDATE "ClusterBrokerOutage" SET "endedAt" = '2026-12-05T10:00:32Z' WHERE "clusterId" = $1`, [clusterId]);
      });
      await expect(row.getByTestId("cluster-brokers")).toHaveText("3 of 3 up", { timeout: 30_000 });
      await expect(outage).toContainText("27 seconds");
      await expect(outage).not.toContainText("still down");
      // A broker that is up cannot be forgotten: no such action on it.
      await expect(row.getByRole("button", { name: /^Forget broker/ })).toHaveCount(0);

      // Node 3 is decommissioned: gone for good. The admin forgets it, giving a reason; the count and the outage say so.
      await withDb(async (db) => {
        await db.query(`UPDATE "ClusterBroker" SET "downSince" = '2026-12-05T11:00:00Z' WHERE "clusterId" = $1 AND "nodeId" = 3`, [clusterId]);
        await db.query(`INSERT INTO "ClusterBrokerOutage" (id, "clusterId", "nodeId", address, "startedAt") VALUES ($1, $2, 3, '127.0.0.1:19303', '2026-12-05T11:00:00Z')`, [`p${Date.now().toString(36)}`, clusterId]);
      });
      await expect(row.getByTestId("cluster-brokers")).toContainText("2 of 3 up", { timeout: 30_000 });
      await row.getByRole("button", { name: `Forget broker 3 of ${environment}` }).click();
      const form = row.getByRole("form", { name: `Forget broker 3 of ${environment}` });
      await form.getByLabel("Reason").fill("Node 3 was decommissioned after the move to new hardware.");
      await form.getByRole("button", { name: "Forget broker 3" }).click();
      await expect(row.getByTestId("broker-forget-pending")).toContainText("forgetting: the worker removes it at its next look");
      expect(await withDb(async (db) => (await db.query(`SELECT reason FROM "ClusterBrokerForget" WHERE "clusterId" = $1 AND "nodeId" = 3`, [clusterId])).rows)).toEqual([{ reason: "Node 3 was decommissioned after the move to new hardware." }]);
      // Stand-in for the worker (health/cluster-brokers.ts forgetRequested): the broker is still down, so it goes.
      await withDb(async (db) => {
        await db.query(`DELETE FROM "ClusterBrokerForget" WHERE "clusterId" = $1`, [clusterId]);
        await db.query(`DELETE FROM "ClusterBroker" WHERE "clusterId" = $1 AND "nodeId" = 3`, [clusterId]);
        await db.query(`UPDATE "ClusterBrokerOutage" SET "endedAt" = now(), "forgottenAt" = now() WHERE "clusterId" = $1 AND "nodeId" = 3`, [clusterId]);
      });
      await expect(row.getByTestId("cluster-brokers")).toHaveText("2 of 2 up", { timeout: 30_000 });
      const forgotten = admin.getByTestId("broker-outage").filter({ hasText: "127.0.0.1:19303" });
      await expect(forgotten).toContainText("forgotten (decommissioned)");
      await expect(forgotten).not.toContainText("still down");
    } finally {
      await withDb((db) => db.query(`DELETE FROM "Cluster" WHERE id = $1`, [clusterId]));
    }
  });
});
