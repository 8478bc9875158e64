import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listClusters, loadActor, recordPrimaryCluster, type Actor, type Db } from "@kappa/catalog";
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
    expect(await recordLiveBrokers(db, cluster, three, new Date("2026-12-05T10:00:00Z"))).toEqual({ down: [], back: [] });
    expect((await page()).brokers.map((b) => `${b.nodeId} ${b.address} ${b.downSince ?? "up"}`)).toEqual(["1 127.0.0.1:9101 up", "2 127.0.0.1:9102 up", "3 127.0.0.1:9103 up"]);

    // Node 2 is gone; two workers see it in the same moment: one outage, one notification.
    const at = new Date("2026-12-05T10:00:05Z");
    const [a, b] = await Promise.all([recordLiveBrokers(db, cluster, withoutTwo, at), recordLiveBrokers(db, cluster, withoutTwo, at)]);
    expect([...a.down, ...b.down]).toEqual([{ nodeId: 2, address: "127.0.0.1:9102" }]);
    // Still gone at the next look: nothing new.
    expect(await recordLiveBrokers(db, cluster, withoutTwo, new Date("2026-12-05T10:00:10Z"))).toEqual({ down: [], back: [] });
    let shown = await page();
    expect(shown.brokers.find((x) => x.nodeId === 2)?.downSince).toBe("2026-12-05T10:00:05.000Z");
    expect(shown.brokerOutages).toEqual([{ nodeId: 2, address: "127.0.0.1:9102", startedAt: "2026-12-05T10:00:05.000Z", endedAt: null }]);
    expect(await told()).toEqual(["cluster.broker-down: Broker 2 of dev is down"]);
    expect(await db.notification.count({ where: { userId: admin.id } })).toBe(1);

    // An empty answer says nothing about the brokers: no outage for all three.
    expect(await recordLiveBrokers(db, cluster, new Map(), new Date("2026-12-05T10:00:12Z"))).toEqual({ down: [], back: [] });

    // Back, seen by both workers again: closed once, with how long it lasted; it may come back at another address.
    const back = new Date("2026-12-05T10:00:32Z");
    const rejoined = new Map([...withoutTwo, [2, "127.0.0.1:9112"]]);
    const [c, d] = await Promise.all([recordLiveBrokers(db, cluster, rejoined, back), recordLiveBrokers(db, cluster, rejoined, back)]);
    expect([...c.back, ...d.back]).toEqual([{ nodeId: 2, address: "127.0.0.1:9112", downForMs: 27_000 }]);
    shown = await page();
    expect(shown.brokers.every((x) => x.downSince === null)).toBe(true);
    expect(shown.brokers.find((x) => x.nodeId === 2)?.address).toBe("127.0.0.1:9112");
    expect(shown.brokerOutages).toEqual([{ nodeId: 2, address: "127.0.0.1:9102", startedAt: "2026-12-05T10:00:05.000Z", endedAt: "2026-12-05T10:00:32.000Z" }]);
    expect(await told()).toEqual(["cluster.broker-down: Broker 2 of dev is down", "cluster.broker-back: Broker 2 of dev is back"]);
    expect(await db.auditEvent.count({ where: { entityId: cluster.id, action: { in: ["cluster.brokerDown", "cluster.brokerBack"] } } })).toBe(2);
  });
});
