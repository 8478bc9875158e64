import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetBroker, listClusters, loadActor, recordPrimaryCluster, type Actor, type Db } from "@kappa/catalog";
import { recordLiveBrokers } from "../src/health/cluster-brokers.ts";
import { openTestDatabase } from "./helpers.ts";

/*
 * The record behind the admins' clusters page (issue 28: "the portal shows the
 * broker outage and its end"), on the real database: what the worker writes
 * when a broker leaves and rejoins the metadata, told to the admins once even
 * when two workers look at the same moment. The kill of a real broker is
 * producer-failover.integration.test.ts's (3-node Apache Kafka).
 */
describe("brokers down and back, as the clusters page shows them", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let admin: Actor;
  let cluster: { id: string; environment: string };

  beforeAll(async () => {
    database = await openTestDatabase();
    db = database.db;
    admin = await loadActor(db, (await db.user.create({ data: { email: "admin@platform.test", name: "admin", globalRole: "ADMIN" } })).id);
    await recordPrimaryCluster(db, { environment: "dev", bootstrap: "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", securityProtocol: "SASL_PLAINTEXT", saslMechanism: "scram-sha-512", adminUser: "kappa-admin" });
    cluster = await db.cluster.findUniqueOrThrow({ where: { environment: "dev" }, select: { id: true, environment: true } });
  });

  afterAll(async () => {
    await database?.dispose();
  });

  const three = new Map([
    [1, "127.0.0.1:9101"],
    [2, "127.0.0.1:9102"],
    [3, "127.0.0.1:9103"],
  ]);
  const withoutTwo = new Map([...three].filter(([id]) => id !== 2));
  const page = async () => (await listClusters(db, admin)).find((c) => c.environment === "dev")!;
  const told = async () => (await db.notificationEvent.findMany({ where: { entityId: cluster.id }, orderBy: { createdAt: "asc" }, select: { kind: true, title: true } })).map((n) => `${n.kind}: ${n.title}`);

  it("a broker missing from the metadata opens an outage once, even with two workers looking; its return closes it; the admins are told both times", async () => {
    expect(await recordLiveBrokers(db, cluster, three, new Date("2026-12-05T10:00:00Z"))).toEqual({ down: [], back: [], forgotten: [] });
    expect((await page()).brokers.map((b) => `${b.nodeId} ${b.address} ${b.downSince ?? "up"}`)).toEqual(["1 127.0.0.1:9101 up", "2 127.0.0.1:9102 up", "3 127.0.0.1:9103 up"]);

    // Node 2 is gone; two workers see it in the same moment: one outage, one notification.
    const at = new Date("2026-12-05T10:00:05Z");
    const [a, b] = await Promise.all([recordLiveBrokers(db, cluster, withoutTwo, at), recordLiveBrokers(db, cluster, withoutTwo, at)]);
    expect([...a.down, ...b.down]).toEqual([{ nodeId: 2, address: "127.0.0.1:9102" }]);
    // Still gone at the next look: nothing new.
    expect(await recordLiveBrokers(db, cluster, withoutTwo, new Date("2026-12-05T10:00:10Z"))).toEqual({ down: [], back: [], forgotten: [] });
    let shown = await page();
    expect(shown.brokers.find((x) => x.nodeId === 2)?.downSince).toBe("2026-12-05T10:00:05.000Z");
    expect(shown.brokerOutages).toEqual([{ nodeId: 2, address: "127.0.0.1:9102", startedAt: "2026-12-05T10:00:05.000Z", endedAt: null, forgottenAt: null }]);
    expect(await told()).toEqual(["cluster.broker-down: Broker 2 of dev is down"]);
    expect(await db.notification.count({ where: { userId: admin.id } })).toBe(1);

    // An empty answer says nothing about the brokers: no outage for all three.
    expect(await recordLiveBrokers(db, cluster, new Map(), new Date("2026-12-05T10:00:12Z"))).toEqual({ down: [], back: [], forgotten: [] });

    // Back, seen by both workers again: closed once, with how long it lasted; it may come back at another address.
    const back = new Date("2026-12-05T10:00:32Z");
    const rejoined = new Map([...withoutTwo, [2, "127.0.0.1:9112"]]);
    const [c, d] = await Promise.all([recordLiveBrokers(db, cluster, rejoined, back), recordLiveBrokers(db, cluster, rejoined, back)]);
    expect([...c.back, ...d.back]).toEqual([{ nodeId: 2, address: "127.0.0.1:9112", downForMs: 27_000 }]);
    shown = await page();
    expect(shown.brokers.every((x) => x.downSince === null)).toBe(true);
    expect(shown.brokers.find((x) => x.nodeId === 2)?.address).toBe("127.0.0.1:9112");
    expect(shown.brokerOutages).toEqual([{ nodeId: 2, address: "127.0.0.1:9102", startedAt: "2026-12-05T10:00:05.000Z", endedAt: "2026-12-05T10:00:32.000Z", forgottenAt: null }]);
    expect(await told()).toEqual(["cluster.broker-down: Broker 2 of dev is down", "cluster.broker-back: Broker 2 of dev is back"]);
    expect(await db.auditEvent.count({ where: { entityId: cluster.id, action: { in: ["cluster.brokerDown", "cluster.brokerBack"] } } })).toBe(2);
  });

  it("an admin's request to forget a decommissioned broker is carried out once by the worker while it is down, and dropped if it came back", async () => {
    const acting = { userId: admin.id };
    const reason = { reason: "Node 3 was decommissioned with the old rack." };
    const withoutThree = new Map([...three].filter(([id]) => id !== 3));
    await recordLiveBrokers(db, cluster, three, new Date("2026-12-05T11:00:00Z"));
    await recordLiveBrokers(db, cluster, withoutThree, new Date("2026-12-05T11:00:05Z"));
    // Up brokers cannot be forgotten; a down one can, once at a time.
    await expect(forgetBroker(db, acting, cluster.id, "1", reason)).rejects.toMatchObject({ status: 409, code: "BROKER_UP" });
    expect(await forgetBroker(db, acting, cluster.id, "3", reason)).toMatchObject({ nodeId: 3, status: "PENDING" });
    await expect(forgetBroker(db, acting, cluster.id, "3", reason)).rejects.toMatchObject({ status: 409, code: "FORGET_PENDING" });
    expect((await page()).brokers.find((b) => b.nodeId === 3)?.forgetRequestedAt).toEqual(expect.any(String));

    // Two workers look at the same moment: it is forgotten once; the page counts two brokers, both up.
    const at = new Date("2026-12-05T11:00:10Z");
    const [a, b] = await Promise.all([recordLiveBrokers(db, cluster, withoutThree, at), recordLiveBrokers(db, cluster, withoutThree, at)]);
    expect([...a.forgotten, ...b.forgotten]).toEqual([{ nodeId: 3, address: "127.0.0.1:9103" }]);
    const shown = await page();
    expect(shown.brokers.map((x) => `${x.nodeId} ${x.downSince ?? "up"}`)).toEqual(["1 up", "2 up"]);
    expect(shown.brokerOutages[0]).toEqual({ nodeId: 3, address: "127.0.0.1:9103", startedAt: "2026-12-05T11:00:05.000Z", endedAt: "2026-12-05T11:00:10.000Z", forgottenAt: "2026-12-05T11:00:10.000Z" });
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: cluster.id, action: "cluster.brokerForgotten" } });
    expect(audit.data).toMatchObject({ nodeId: 3, address: "127.0.0.1:9103", requestedBy: admin.id, reason: reason.reason });
    // Still gone at the next look: no new outage, no "down" for a broker nobody lists any more.
    expect(await recordLiveBrokers(db, cluster, withoutThree, new Date("2026-12-05T11:00:15Z"))).toEqual({ down: [], back: [], forgotten: [] });

    // Node 2 goes down, an admin asks to forget it, but it is back before the worker looks: kept, the request dropped.
    await recordLiveBrokers(db, cluster, new Map([[1, "127.0.0.1:9101"]]), new Date("2026-12-05T11:01:00Z"));
    await forgetBroker(db, acting, cluster.id, "2", reason);
    expect(await recordLiveBrokers(db, cluster, withoutThree, new Date("2026-12-05T11:01:05Z"))).toMatchObject({ forgotten: [], back: [{ nodeId: 2 }] });
    expect((await page()).brokers.map((x) => `${x.nodeId} ${x.downSince ?? "up"} ${x.forgetRequestedAt ?? "-"}`)).toEqual(["1 up -", "2 up -"]);
    expect(await db.auditEvent.count({ where: { entityId: cluster.id, action: "cluster.brokerForgetRefused" } })).toBe(1);
    // A node that joins again later is a new broker.
    await recordLiveBrokers(db, cluster, three, new Date("2026-12-05T11:02:00Z"));
    expect((await page()).brokers.map((x) => x.nodeId)).toEqual([1, 2, 3]);
  });
});
