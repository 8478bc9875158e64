// Promotion dev → prod over TCP, on the embedded broker and on Apache Kafka:
// the worker's own cluster is `dev` (a SASL/SCRAM embedded broker with the ACL
// authorizer, or the suite's shared 3-node Apache Kafka cluster); `prod` is a
// second, independent cluster of the same kind (an embedded broker, or a
// single Apache Kafka node) with its own admin, which an admin registers in
// the catalog (password sealed). The promoted product's topic and producer
// ACLs must appear on prod, and records written there by the producer
// principal must be readable.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveChangeRequest,
  approvePromotion,
  approveSchemaVersion,
  approveSubscription,
  consumerGroupPrefix,
  createServiceAccount,
  deprecateProduct,
  loadActor,
  productEnvironments,
  promoteProduct,
  proposeSchemaVersion,
  registerCluster,
  rejectPromotion,
  requestCredentialRotation,
  requestPartitionIncrease,
  requestSubscription,
  retireProduct,
  revealCredentialOnce,
  revokeSubscription,
  type Db,
} from "@kappa/catalog";
import { startApacheKafka } from "@kappa/engines";
import { approvedProduct, clusterFor, kafkaClient, KAFKA_TARGETS, openTestDatabase, SECRETS_KEY, seedPeople, startKafkaTarget, startTestBroker, startWorker, waitFor, type KafkaTarget, type KafkaTargetKind } from "./helpers.ts";

const PROD_ADMIN = { name: "prod-admin", password: "prod-admin-secret-for-tests" };

/** The `prod` cluster: an embedded broker as in production (SASL/SCRAM, the ACL authorizer), or one Apache Kafka node. */
async function startProd(kind: KafkaTargetKind): Promise<{ bootstrap: string; cleanup(): Promise<void> }> {
  if (kind === "embedded") {
    const broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${PROD_ADMIN.name}`, saslUsers: [PROD_ADMIN] });
    return { bootstrap: broker.bootstrap, cleanup: () => broker.cleanup() };
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-prod-kafka-"));
  const node = await startApacheKafka({ nodes: 1, dataDir, adminUser: PROD_ADMIN.name, adminPassword: PROD_ADMIN.password });
  return {
    bootstrap: node.bootstrap,
    cleanup: async () => {
      await node.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe.each(KAFKA_TARGETS)("promotion dev → prod on %s", (kind) => {
  let dev: KafkaTarget;
  let prod: { bootstrap: string; cleanup(): Promise<void> };
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  let running: ReturnType<typeof startWorker>;
  let admin: { userId: string };
  /** Products of the tests below: one promoted to prod (with a record written there), one only on dev. */
  let promoted: { id: string; topicName: string; name: string };
  let devOnly: { id: string };

  beforeAll(async () => {
    // Both as in production: SASL/SCRAM with the ACL authorizer, each with its own admin.
    [dev, prod] = await Promise.all([startKafkaTarget(kind), startProd(kind)]);
    database = await openTestDatabase();
    db = database.db;
    people = await seedPeople(db);
    admin = { userId: (await db.user.create({ data: { email: `admin-${Date.now()}@platform.test`, name: "Platform Admin", globalRole: "ADMIN" } })).id };
    running = startWorker(
      db,
      dev.bootstrap,
      { environments: { intervalMs: 200, primary: { environment: "dev", bootstrap: dev.bootstrap, securityProtocol: "SASL_PLAINTEXT", saslMechanism: "scram-sha-512", adminUser: dev.admin.name } } },
      dev.sasl,
    );
    await running.start();
  });

  afterAll(async () => {
    await running?.stop();
    await database?.dispose();
    await dev?.cleanup();
    await prod?.cleanup();
  });

  const prodAdmin = () => clusterFor(prod.bootstrap, { mechanism: "SCRAM-SHA-512", username: PROD_ADMIN.name, password: PROD_ADMIN.password });

  describe("environments and promotion", () => {
    it("records the worker's cluster as the primary environment and an admin registers prod with its password sealed and audited without it", async () => {
      expect(await db.cluster.findUnique({ where: { environment: "dev" } })).toMatchObject({ primary: true, bootstrap: dev.bootstrap, adminUser: dev.admin.name, adminPasswordSealed: null });
      const cluster = await registerCluster(db, admin, SECRETS_KEY, {
        environment: "prod",
        bootstrap: prod.bootstrap,
        securityProtocol: "SASL_PLAINTEXT",
        saslMechanism: "scram-sha-512",
        adminUser: PROD_ADMIN.name,
        adminPassword: PROD_ADMIN.password,
        maxPartitions: 4,
      });
      expect(cluster).toMatchObject({ environment: "prod", hasPassword: true });
      expect(JSON.stringify(cluster)).not.toContain(PROD_ADMIN.password);
      const row = await db.cluster.findUniqueOrThrow({ where: { environment: "prod" } });
      expect(row.adminPasswordSealed).toMatch(/^v1:/);
      expect(row.adminPasswordSealed).not.toContain(PROD_ADMIN.password);
      const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "cluster.registered", entityId: cluster.id } });
      expect(audit.actorId).toBe(admin.userId);
      expect(JSON.stringify(audit.data)).not.toContain(PROD_ADMIN.password);
      // Only admins register clusters, and a name is taken once (the worker's own included).
      await expect(registerCluster(db, people.as.ordersOwner, SECRETS_KEY, { environment: "qa", bootstrap: prod.bootstrap, securityProtocol: "PLAINTEXT" })).rejects.toMatchObject({ status: 403 });
      await expect(registerCluster(db, admin, SECRETS_KEY, { environment: "dev", bootstrap: prod.bootstrap, securityProtocol: "PLAINTEXT" })).rejects.toMatchObject({ code: "ENVIRONMENT_TAKEN" });
      // The worker reaches prod with the sealed credentials.
      await waitFor(async () => (await db.cluster.findUniqueOrThrow({ where: { id: cluster.id } })).lastSeenAt !== null, 5_000, "the worker to reach prod");
    });

    it("refuses a promotion beyond prod's stricter bounds, naming the field", async () => {
      const wide = await approvedProduct(db, people, { partitions: 6 });
      await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: wide.id } })).status === "ACTIVE", 10_000, "the wide product on dev");
      devOnly = wide;
      await expect(promoteProduct(db, people.as.ordersOwner, wide.id, { environment: "prod" })).rejects.toMatchObject({ status: 400, fields: { partitions: [expect.stringContaining("at most 4 partitions")] } });
    });

    it("promotes dev → prod through its own four-eyes review and provisions the topic and producer ACLs on the prod broker, where records can be read", async () => {
      const product = await approvedProduct(db, people, { partitions: 3 });
      promoted = product;
      await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 10_000, "the product on dev");
      await expect(promoteProduct(db, people.as.paymentsOwner, product.id, { environment: "prod" })).rejects.toMatchObject({ status: 403 });
      const deployment = await promoteProduct(db, people.as.ordersOwner, product.id, { environment: "prod" });
      expect(deployment).toMatchObject({ status: "IN_REVIEW", topicName: product.topicName, partitions: 3, sourceEnvironment: "dev" });
      expect(deployment.schemaVersionIds).toHaveLength(1);
      await expect(promoteProduct(db, people.as.ordersOwner, product.id, { environment: "prod" })).rejects.toMatchObject({ code: "ALREADY_PROMOTED" });
      // Not provisioned before the review: prod has no such topic.
      expect((await prodAdmin().listTopics()).includes(product.topicName)).toBe(false);
      await expect(approvePromotion(db, people.as.ordersOwner, deployment.id)).rejects.toMatchObject({ status: 403 });
      await expect(rejectPromotion(db, people.as.reviewer, deployment.id, { reason: "x" })).rejects.toMatchObject({ status: 400 });
      await approvePromotion(db, people.as.reviewer, deployment.id, { comment: "Ready for prod" });

      await waitFor(async () => (await db.productDeployment.findUniqueOrThrow({ where: { id: deployment.id } })).status === "ACTIVE", 10_000, "the prod deployment to become ACTIVE");
      const cluster = prodAdmin();
      try {
        const described = await cluster.describeTopics([product.topicName]);
        expect(described.get(product.topicName)?.partitions).toBe(3);
        const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
        const principal = `User:${producer.name}`;
        const grants = (await cluster.describeAcls([principal])).map((b) => `${b.operation} ${b.resourceType}:${b.resourceName}`).sort();
        expect(grants).toEqual(expect.arrayContaining([`WRITE TOPIC:${product.topicName}`, `DESCRIBE TOPIC:${product.topicName}`, "IDEMPOTENT_WRITE CLUSTER:kafka-cluster"]));

        // The producer's one password, picked up once in the portal, was issued on
        // dev; the worker installed the same credential on prod, so it writes there
        // through its granted ACL, and a reader gets the records back.
        await waitFor(async () => (await db.environmentCredential.findUnique({ where: { serviceAccountId_environment: { serviceAccountId: producer.id, environment: "prod" } } })) !== null, 10_000, "the producer's credential on prod");
        const issued = await revealCredentialOnce(db, SECRETS_KEY, people.as.ordersOwner, producer.id);
        const sasl = (username: string, password: string) => ({ sasl: { mechanism: "scram-sha-512" as const, username, password } });
        // Apache Kafka's broker learns the credential and the grant from the metadata log a moment after its
        // controller commits them: a producer that is refused meanwhile tries again, as an operator would.
        await waitFor(async () => {
          const kafkaProducer = kafkaClient(prod.bootstrap, sasl(producer.name, issued.password)).producer();
          try {
            await kafkaProducer.connect();
            await kafkaProducer.send({ topic: product.topicName, messages: [{ key: "k1", value: "promoted-record" }] });
            return true;
          } catch {
            return false;
          } finally {
            await kafkaProducer.disconnect().catch(() => undefined);
          }
        }, 15_000, "the producer to write on prod");
        const consumer = kafkaClient(prod.bootstrap, sasl(PROD_ADMIN.name, PROD_ADMIN.password)).consumer({ groupId: `prod-reader-${deployment.id}` });
        const seen: string[] = [];
        await consumer.connect();
        await consumer.subscribe({ topic: product.topicName, fromBeginning: true });
        await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? "") });
        await waitFor(() => seen.includes("promoted-record"), 10_000, "the record read back on prod");
        await consumer.disconnect();
      } finally {
        await cluster.close();
      }

      const actions = (await db.auditEvent.findMany({ where: { entityId: deployment.id }, orderBy: { at: "asc" } })).map((a) => a.action);
      expect(actions).toEqual(["product.promotion.requested", "product.promotion.approved", "product.promotion.provisioned"]);
      // dev's product is untouched by the promotion.
      expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("ACTIVE");
    });
  });

  describe("subscriptions per environment", () => {
    const sasl = (username: string, password: string) => ({ sasl: { mechanism: "scram-sha-512" as const, username, password } });
    const purpose = "Reconciliation of payments against orders in prod.";
    /** A Fetch of every partition of the promoted topic as `username` on prod: "read", or the refusal. */
    async function fetchAs(username: string, password: string): Promise<string> {
      const reader = clusterFor(prod.bootstrap, { mechanism: "SCRAM-SHA-512", username, password });
      try {
        const parts = await reader.fetchRecords([0, 1, 2].map((partition) => ({ topic: promoted.topicName, partition, offset: 0n })));
        const codes = [...parts.values()].map((p) => p.errorCode);
        return codes.every((c) => c === 0) ? "read" : `error code ${codes.join(",")}`;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      } finally {
        await reader.close();
      }
    }

    it("subscribes a consumer in prod only where the product is live there, grants READ on the prod broker (not dev) after four-eyes approval, and takes it away on revoke", async () => {
      const account = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name: `${people.payments.slug}-prod-reader`, description: "reads in prod" });
      const principal = `User:${account.name}`;
      // Refused where the product is not live, naming the environment; an unknown environment is a field error.
      await expect(requestSubscription(db, people.as.paymentsOwner, { productId: devOnly.id, serviceAccountId: account.id, purpose, environment: "prod" })).rejects.toMatchObject({
        code: "NOT_LIVE_IN_ENVIRONMENT",
        message: expect.stringContaining("is not live in prod (it has not been promoted there)"),
      });
      await expect(requestSubscription(db, people.as.paymentsOwner, { productId: promoted.id, serviceAccountId: account.id, purpose, environment: "qa" })).rejects.toMatchObject({
        status: 400,
        fields: { environment: ["There is no environment named qa."] },
      });

      const sub = await requestSubscription(db, people.as.paymentsOwner, { productId: promoted.id, serviceAccountId: account.id, purpose, environment: "prod" });
      expect(sub).toMatchObject({ status: "REQUESTED", environment: "prod" });
      await expect(requestSubscription(db, people.as.paymentsOwner, { productId: promoted.id, serviceAccountId: account.id, purpose, environment: "prod" })).rejects.toMatchObject({ code: "DUPLICATE_SUBSCRIPTION" });
      // The same account may also ask in dev (the primary, stored as NULL): a separate subscription.
      const inDev = await requestSubscription(db, people.as.paymentsOwner, { productId: promoted.id, serviceAccountId: account.id, purpose, environment: "dev" });
      expect(inDev.environment).toBeNull();
      // Four eyes and the product's people: the consumer's own domain cannot approve.
      await expect(approveSubscription(db, people.as.paymentsOwner, sub.id)).rejects.toMatchObject({ status: 403 });
      await approveSubscription(db, people.as.ordersOwner, sub.id);
      // Granted by the environment reconciler, never by a primary-cluster task.
      expect(await db.provisioningTask.count({ where: { entityType: "Subscription", entityId: sub.id } })).toBe(0);
      await waitFor(async () => (await db.subscription.findUniqueOrThrow({ where: { id: sub.id } })).status === "ACTIVE", 10_000, "the prod subscription to become ACTIVE");

      const prodCluster = prodAdmin();
      const devCluster = clusterFor(dev.bootstrap, dev.sasl);
      try {
        const grants = (await prodCluster.describeAcls([principal])).map((b) => `${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`).sort();
        expect(grants).toEqual([`DESCRIBE TOPIC:LITERAL:${promoted.topicName}`, `READ GROUP:PREFIXED:${consumerGroupPrefix(account.name)}`, `READ TOPIC:LITERAL:${promoted.topicName}`]);
        expect(await devCluster.describeAcls([principal])).toEqual([]);

        // A consumer that subscribes only in prod had no credentials: the worker issued them on prod (not dev);
        // its owners pick the password up once, and it reads the promoted record through its ACLs.
        expect((await devCluster.describeScramUsers([account.name])).has(account.name)).toBe(false);
        expect((await prodCluster.describeScramUsers([account.name])).get(account.name)).toEqual(["SCRAM-SHA-512"]);
        let password = (await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, account.id)).password;
        // On Apache Kafka the broker applies the credential and the grants a moment after the controller commits them.
        await waitFor(async () => (await fetchAs(account.name, password)) === "read", 15_000, "the subscriber's credential and grants in force on prod");
        const reader = kafkaClient(prod.bootstrap, sasl(account.name, password)).consumer({ groupId: `${consumerGroupPrefix(account.name)}recon` });
        const seen: string[] = [];
        await reader.connect();
        await reader.subscribe({ topic: promoted.topicName, fromBeginning: true });
        await reader.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? "") });
        await waitFor(() => seen.includes("promoted-record"), 10_000, "the subscriber to read on prod");
        await reader.disconnect();

        // A rotation reaches prod: the old password stops working there, the new one works.
        await requestCredentialRotation(db, people.as.paymentsOwner, account.id);
        await waitFor(async () => /authenticat|SASL|credential/i.test(await fetchAs(account.name, password)), 15_000, "the old password to be refused on prod");
        const rotated = await waitFor(async () => {
          try {
            return await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, account.id);
          } catch {
            return null;
          }
        }, 15_000, "the rotated password to be ready");
        expect(rotated.password).not.toBe(password);
        password = rotated.password;
        await waitFor(async () => (await fetchAs(account.name, password)) === "read", 15_000, "the new password to read on prod");

        await revokeSubscription(db, people.as.ordersOwner, sub.id, { reason: "Reconciliation moved to the new ledger." });
        await waitFor(async () => (await prodCluster.describeAcls([principal])).length === 0, 10_000, "the prod ACLs to be removed");
        // Without its ACLs the consumer cannot read any more: a Fetch of the topic as that principal is refused.
        await waitFor(async () => /authoriz|code 29/i.test(await fetchAs(account.name, password)), 10_000, "the revoked consumer's Fetch to be refused");
      } finally {
        await prodCluster.close();
        await devCluster.close();
      }
      const audit = (await db.auditEvent.findMany({ where: { entityId: { in: [sub.id, account.id] } }, orderBy: { at: "asc" } })).map((a) => a.action);
      expect(audit).toEqual(expect.arrayContaining(["serviceAccount.credentials.issued", "serviceAccount.credentials.reissued", "serviceAccount.credentials.installed", "subscription.requested", "subscription.approved", "subscription.environment-acls", "subscription.activated", "subscription.revoked"]));
    });
    it("keeps a prod subscription APPROVED, not ACTIVE, while its account's credential cannot be installed on prod, and activates it once a rotation makes one", async () => {
      const account = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name: `${people.payments.slug}-legacy-reader`, description: "credentials from before sealing" });
      // Credentials issued before they were sealed for other environments: the worker cannot carry them to prod.
      await db.serviceAccount.update({ where: { id: account.id }, data: { secretHash: "scrypt$legacy", secretIssuedAt: new Date(), scramSealed: null } });
      const sub = await requestSubscription(db, people.as.paymentsOwner, { productId: promoted.id, serviceAccountId: account.id, purpose, environment: "prod" });
      await approveSubscription(db, people.as.ordersOwner, sub.id);
      const prodCluster = prodAdmin();
      try {
        // The grant is made (harmless without a credential), but ACTIVE would tell the consumer it can connect.
        await waitFor(async () => (await prodCluster.describeAcls([`User:${account.name}`])).length === 3, 10_000, "the prod ACLs of the legacy account");
        // Three more whole cycles (each runNow waits for the one under way) leave it APPROVED.
        for (let i = 0; i < 3; i++) await running.worker.environments?.runNow();
        expect((await db.subscription.findUniqueOrThrow({ where: { id: sub.id } })).status).toBe("APPROVED");
        expect((await prodCluster.describeScramUsers([account.name])).has(account.name)).toBe(false);

        // One rotation issues a sealed credential; the worker installs it on prod and only then activates.
        await requestCredentialRotation(db, people.as.paymentsOwner, account.id);
        await waitFor(async () => (await db.subscription.findUniqueOrThrow({ where: { id: sub.id } })).status === "ACTIVE", 15_000, "the prod subscription to become ACTIVE");
        expect((await prodCluster.describeScramUsers([account.name])).get(account.name)).toEqual(["SCRAM-SHA-512"]);
        await revokeSubscription(db, people.as.ordersOwner, sub.id, { reason: "Test over." });
        await waitFor(async () => (await prodCluster.describeAcls([`User:${account.name}`])).length === 0, 10_000, "the prod ACLs to be removed");
      } finally {
        await prodCluster.close();
      }
    });
  });

  describe("later changes carried to a promoted environment", () => {
    it("a partition increase and a new schema version on dev make prod behind; promoting again is reviewed before the prod broker changes", async () => {
      const request = await requestPartitionIncrease(db, people.as.ordersOwner, promoted.id, { partitions: 4, reason: "More parallel consumers" });
      await approveChangeRequest(db, people.as.reviewer, request.id);
      const v2 = await proposeSchemaVersion(db, people.as.ordersOwner, promoted.id, {
        definition: JSON.stringify({ type: "record", name: "Event", fields: [{ name: "id", type: "string" }, { name: "note", type: ["null", "string"], default: null }] }),
      });
      await approveSchemaVersion(db, people.as.reviewer, v2.id, { fingerprint: v2.fingerprint ?? "" });

      const prodOf = async (as: { userId: string }) => {
        const state = await productEnvironments(db, await loadActor(db, as.userId), promoted.id);
        return { prod: state.environments.find((e) => e.environment === "prod"), promotableTo: state.promotableTo };
      };
      const behind = await prodOf(people.as.ordersOwner);
      expect(behind.prod?.behind).toEqual(["dev has v2, prod has v1", "dev has 4 partitions, prod has 3"]);
      expect(behind.promotableTo).toEqual(["prod"]);

      const again = await promoteProduct(db, people.as.ordersOwner, promoted.id, { environment: "prod" });
      expect(again).toMatchObject({ status: "ACTIVE", partitions: 3 });
      await expect(promoteProduct(db, people.as.ordersOwner, promoted.id, { environment: "prod" })).rejects.toMatchObject({ code: "ALREADY_PROMOTED" });
      const inReview = await prodOf(people.as.reviewer);
      expect(inReview.prod).toMatchObject({ status: "ACTIVE", partitions: 3, pendingUpdate: { partitions: 4, schemaVersions: [1, 2] }, canDecide: true });
      // Nothing changes on prod before the review (several reconcile cycles pass).
      await running.worker.environments?.runNow();
      await running.worker.environments?.runNow();
      const prodCluster = prodAdmin();
      try {
        expect((await prodCluster.describeTopics([promoted.topicName])).get(promoted.topicName)?.partitions).toBe(3);
        await expect(approvePromotion(db, people.as.ordersOwner, again.id)).rejects.toMatchObject({ status: 403 });
        await approvePromotion(db, people.as.reviewer, again.id, { comment: "v2 and a fourth partition for prod" });
        await waitFor(async () => (await prodCluster.describeTopics([promoted.topicName])).get(promoted.topicName)?.partitions === 4, 10_000, "prod's topic to grow to 4 partitions");
      } finally {
        await prodCluster.close();
      }
      const after = await prodOf(people.as.ordersOwner);
      expect(after.prod).toMatchObject({ status: "ACTIVE", partitions: 4, schemaVersions: [1, 2], behind: [], pendingUpdate: null });
      expect(after.promotableTo).toEqual([]);
    });
  });

  describe("retirement on a promoted environment", () => {
    it("retiring the product takes the producer's ACLs off prod and marks the promotion RETIRED", async () => {
      await deprecateProduct(db, people.as.ordersOwner, promoted.id, { reason: "Replaced by v2.", sunsetAt: new Date(Date.now() + 86_400_000).toISOString() });
      await retireProduct(db, people.as.ordersOwner, promoted.id, { reason: "Everyone moved to v2." });
      const deployment = await db.productDeployment.findUniqueOrThrow({ where: { productId_environment: { productId: promoted.id, environment: "prod" } } });
      await waitFor(async () => (await db.productDeployment.findUniqueOrThrow({ where: { id: deployment.id } })).status === "RETIRED", 10_000, "the prod promotion to be RETIRED");
      const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
      const prodCluster = prodAdmin();
      try {
        // No other orders product is live on prod, so its IDEMPOTENT_WRITE goes too.
        expect(await prodCluster.describeAcls([`User:${producer.name}`])).toEqual([]);
        // The test worker deletes retired topics (WORKER_RETIRED_TOPICS=delete), on prod as on dev.
        await waitFor(async () => !(await prodCluster.listTopics()).includes(promoted.topicName), 10_000, "the retired topic to be deleted on prod");
      } finally {
        await prodCluster.close();
      }
      const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: deployment.id, action: "product.promotion.retired" } });
      expect(audit.data).toMatchObject({ environment: "prod", topic: promoted.topicName, topicDeleted: true, aclsDeleted: expect.arrayContaining([`ALLOW WRITE TOPIC:LITERAL:${promoted.topicName}`]) });
    });
  });
});
