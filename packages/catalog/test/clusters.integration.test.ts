import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetBroker, listClusters, loadActor, openClusterPassword, registerCluster, sealClusterPassword, updateCluster, type Db } from "../src/index.ts";
import { encryptSecret } from "../src/secrets.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 2: an admin (or an admin-scoped token) pointed a
 * registered cluster's bootstrap at its own broker, switched to SASL PLAIN and
 * kept the stored password — the worker then sent the sealed Kafka admin
 * password there in clear. The password must be entered again for a new
 * target, and the seal itself binds the target.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
const key = randomBytes(32);
const PASSWORD = "the-real-admin-password";

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

async function registered(environment: string) {
  return registerCluster(db, ctx.as.admin, key, {
    environment,
    bootstrap: "kafka-1.prod.example:9093",
    securityProtocol: "SASL_SSL",
    saslMechanism: "scram-sha-512",
    adminUser: "kappa-admin",
    adminPassword: PASSWORD,
  });
}
const row = (id: string) => db.cluster.findUniqueOrThrow({ where: { id } });

describe("a cluster's sealed admin password goes only to the target it was entered for", () => {
  it("refuses a new bootstrap, protocol or mechanism without the password, naming the field and what changed; nothing is written", async () => {
    const cluster = await registered("exfil");
    const before = await row(cluster.id);
    const attempts = [
      { bootstrap: "attacker.example:9092", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "plain", adminUser: "kappa-admin" },
      { bootstrap: "attacker.example:9093", securityProtocol: "SASL_SSL", saslMechanism: "scram-sha-512", adminUser: "kappa-admin" },
      { bootstrap: "kafka-1.prod.example:9093", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "scram-sha-512", adminUser: "kappa-admin" },
      { bootstrap: "kafka-1.prod.example:9093", securityProtocol: "SASL_SSL", saslMechanism: "plain", adminUser: "kappa-admin" },
      // An empty password is "none given", not a new one.
      { bootstrap: "attacker.example:9092", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "plain", adminUser: "kappa-admin", adminPassword: "" },
    ];
    for (const attempt of attempts) {
      await expect(updateCluster(db, ctx.as.admin, key, cluster.id, attempt), JSON.stringify(attempt)).rejects.toMatchObject({
        status: 400,
        fields: { adminPassword: [expect.stringMatching(/^Enter the admin password again/)] },
      });
    }
    await expect(updateCluster(db, ctx.as.admin, key, cluster.id, attempts[0])).rejects.toThrow(/bootstrap servers, security protocol, SASL mechanism/);
    expect(await row(cluster.id)).toEqual(before);
    expect(await db.auditEvent.count({ where: { entityId: cluster.id, action: "cluster.updated" } })).toBe(0);
  });

  it("keeps the password for changes that do not move it (admin user, bounds); the audit names what changed", async () => {
    const cluster = await registered("keep");
    const sealed = (await row(cluster.id)).adminPasswordSealed;
    await updateCluster(db, ctx.as.admin, key, cluster.id, { bootstrap: "kafka-1.prod.example:9093", securityProtocol: "SASL_SSL", saslMechanism: "scram-sha-512", adminUser: "kappa-admin-2", maxPartitions: 6 });
    const after = await row(cluster.id);
    expect(after.adminPasswordSealed).toBe(sealed);
    expect(openClusterPassword(key, after)).toBe(PASSWORD);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: cluster.id, action: "cluster.updated" }, orderBy: { id: "desc" } });
    expect(audit.data).toMatchObject({ changed: ["adminUser", "maxPartitions"], passwordReplaced: false });
  });

  it("a new target with the password entered again is saved, sealed for the new target, and audited as such", async () => {
    const cluster = await registered("moved");
    await updateCluster(db, ctx.as.admin, key, cluster.id, {
      bootstrap: "kafka-9.prod.example:9094",
      securityProtocol: "SASL_SSL",
      saslMechanism: "scram-sha-256",
      adminUser: "kappa-admin",
      adminPassword: "a-new-password",
    });
    const after = await row(cluster.id);
    expect(openClusterPassword(key, after)).toBe("a-new-password");
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: cluster.id, action: "cluster.updated" }, orderBy: { id: "desc" } });
    expect(audit.data).toMatchObject({ changed: ["bootstrap", "saslMechanism"], passwordReplaced: true, to: { bootstrap: "kafka-9.prod.example:9094" } });
    expect(JSON.stringify(audit.data)).not.toContain("a-new-password");
  });

  it("the worker cannot open a sealed password for a row pointed elsewhere behind the catalog's back", async () => {
    const cluster = await registered("bound");
    await db.cluster.update({ where: { id: cluster.id }, data: { bootstrap: "attacker.example:9092", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "plain" } });
    expect(() => openClusterPassword(key, { environment: "bound", bootstrap: "attacker.example:9092", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "plain", adminPasswordSealed: null })).not.toThrow();
    const moved = await row(cluster.id);
    expect(() => openClusterPassword(key, moved)).toThrow(/not sealed for this bootstrap, security protocol and SASL mechanism/);
    // The seal of one target does not open for another, bound to the same environment.
    const target = { environment: "bound", bootstrap: "kafka-1.prod.example:9093", securityProtocol: "SASL_SSL", saslMechanism: "scram-sha-512" };
    const sealed = sealClusterPassword(key, target, PASSWORD);
    expect(openClusterPassword(key, { ...target, adminPasswordSealed: sealed })).toBe(PASSWORD);
    for (const other of [{ bootstrap: "attacker.example:9093" }, { securityProtocol: "SASL_PLAINTEXT" }, { saslMechanism: "plain" }, { environment: "keep" }]) {
      expect(() => openClusterPassword(key, { ...target, ...other, adminPasswordSealed: sealed }), JSON.stringify(other)).toThrow();
    }
    // A seal written before the target was bound (environment only) still opens, so upgrades keep working.
    const legacy = encryptSecret(key, PASSWORD, "cluster:bound");
    expect(openClusterPassword(key, { ...target, adminPasswordSealed: legacy })).toBe(PASSWORD);
  });
});

describe("asking to forget a broker that is down for good (issue 28: a decommissioned node stays 'down' for ever otherwise)", () => {
  /** A cluster with brokers 1 (up) and 2 (down since an hour), as the worker writes them. */
  async function withBrokers(environment: string) {
    const cluster = await registered(environment);
    const since = new Date(Date.now() - 3600_000);
    await db.clusterBroker.createMany({
      data: [
        { clusterId: cluster.id, nodeId: 1, address: "kafka-1.prod.example:9093", lastSeenAt: new Date() },
        { clusterId: cluster.id, nodeId: 2, address: "kafka-2.prod.example:9093", lastSeenAt: since, downSince: since },
      ],
    });
    return cluster;
  }
  const reason = { reason: "Node 2 was decommissioned with the old rack." };

  it("is for platform admins only, with a reason; a broker that is up, an unknown one or a bad node id is refused and nothing is asked", async () => {
    const cluster = await withBrokers("forget-refusals");
    await expect(forgetBroker(db, ctx.as.ordersOwner, cluster.id, "2", reason)).rejects.toMatchObject({ status: 403 });
    await expect(forgetBroker(db, ctx.as.reviewer, cluster.id, "2", reason)).rejects.toMatchObject({ status: 403 });
    await expect(forgetBroker(db, ctx.as.admin, cluster.id, "2", {})).rejects.toMatchObject({ status: 400, fields: { reason: [expect.any(String)] } });
    await expect(forgetBroker(db, ctx.as.admin, cluster.id, "1", reason)).rejects.toMatchObject({ status: 409, code: "BROKER_UP", message: expect.stringContaining("Broker 1 (kafka-1.prod.example:9093) is up") });
    await expect(forgetBroker(db, ctx.as.admin, cluster.id, "7", reason)).rejects.toMatchObject({ status: 404 });
    await expect(forgetBroker(db, ctx.as.admin, "no-such-cluster", "2", reason)).rejects.toMatchObject({ status: 404 });
    for (const bad of ["-1", "2.5", "02", "x", "", "2147483648", "1e3"]) {
      await expect(forgetBroker(db, ctx.as.admin, cluster.id, bad, reason), bad).rejects.toMatchObject({ status: 400, fields: { nodeId: [expect.any(String)] } });
    }
    expect(await db.clusterBrokerForget.count({ where: { clusterId: cluster.id } })).toBe(0);
    expect(await db.auditEvent.count({ where: { entityId: cluster.id, action: "cluster.brokerForgetRequested" } })).toBe(0);
  });

  it("records the request for the worker once, shows it on the broker, and audits who and why", async () => {
    const cluster = await withBrokers("forget-asked");
    const result = await forgetBroker(db, ctx.as.admin, cluster.id, "2", reason);
    expect(result).toMatchObject({ clusterId: cluster.id, environment: "forget-asked", nodeId: 2, address: "kafka-2.prod.example:9093", status: "PENDING" });
    const view = (await listClusters(db, await loadActor(db, ctx.as.admin.userId))).find((c) => c.id === cluster.id);
    expect(view?.brokers.map((b) => [b.nodeId, b.forgetRequestedAt])).toEqual([
      [1, null],
      [2, result.requestedAt],
    ]);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: cluster.id, action: "cluster.brokerForgetRequested" } });
    expect(audit.actorId).toBe(ctx.as.admin.userId);
    expect(audit.data).toMatchObject({ environment: "forget-asked", nodeId: 2, address: "kafka-2.prod.example:9093", reason: reason.reason });
    await expect(forgetBroker(db, ctx.as.admin, cluster.id, "2", reason)).rejects.toMatchObject({ status: 409, code: "FORGET_PENDING" });
  });
});
