import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_DIR } from "../src/migrate.ts";

/*
 * The data migration of the naming rules (issue 8, findings 1–2): rows made
 * under the old rules — a squatted producer name, a platform principal, dots,
 * unprefixed names, a name inside a longer domain's namespace — are moved into
 * their domain's namespace; valid ones are left alone.
 */
const MIGRATION = "20261201094939_principal_namespaces";

describe(`migration ${MIGRATION}`, () => {
  const name = `kappa_naming_${Date.now()}`;
  let client: pg.Client;
  beforeAll(async () => {
    const admin = new pg.Client(inject("pgAdminUrl"));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(inject("pgAdminUrl"));
    u.pathname = `/${name}`;
    client = new pg.Client(u.toString());
    await client.connect();
    // Every migration before this one, as a database of yesterday had them.
    const earlier = (await readdir(MIGRATIONS_DIR, { withFileTypes: true })).filter((e) => e.isDirectory() && e.name < MIGRATION).map((e) => e.name).sort();
    for (const m of earlier) await client.query(await readFile(path.join(MIGRATIONS_DIR, m, "migration.sql"), "utf8"));
  });
  afterAll(async () => {
    await client.end();
    const admin = new pg.Client(inject("pgAdminUrl"));
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("renames accounts that break the rules, keeps the rest, and gives a squatted domain its producer", async () => {
    await client.query(`INSERT INTO "Domain" (id, slug, name, "updatedAt") VALUES ('d-orders', 'orders', 'Orders', now()), ('d-pay', 'payments', 'Payments', now()), ('d-eu', 'orders-eu', 'Orders EU', now())`);
    await client.query(`INSERT INTO "User" (id, email, name, "updatedAt") VALUES ('u1', 'o@x', 'O', now())`);
    await client.query(
      `INSERT INTO "DataProduct" (id, "domainId", name, slug, description, classification, "freshnessSeconds", "availabilityPct", partitions, "topicName", status, "contactEmail", "createdById", "updatedAt")
       VALUES ('p1', 'd-orders', 'Order Events', 'order-events', 'd', 'INTERNAL', 60, 99.9, 1, 'orders.order-events.v1', 'ACTIVE', 'o@x', 'u1', now())`,
    );
    const accounts: [string, string, string, boolean][] = [
      ["a-squat", "d-pay", "orders-producer", false], // payments took orders' producer name
      ["a-admin", "d-orders", "kappa-admin", false], // the worker's admin user
      ["a-dots", "d-pay", "payments.analytics.eu", false],
      ["a-bare", "d-pay", "reconciliation", false],
      ["a-inner", "d-orders", "orders-eu-sync", false], // inside orders-eu's namespace
      ["a-anon", "d-pay", "ANONYMOUS", false],
      ["a-ok", "d-pay", "payments-ledger", false],
      ["a-payprod", "d-pay", "payments-producer", true],
    ];
    for (const [id, domain, n, producer] of accounts) {
      await client.query(`INSERT INTO "ServiceAccount" (id, "domainId", name, "isProducer", "secretHash") VALUES ($1, $2, $3, $4, 'hash')`, [id, domain, n, producer]);
    }
    await client.query(await readFile(path.join(MIGRATIONS_DIR, MIGRATION, "migration.sql"), "utf8"));

    const rows = await client.query<{ id: string; name: string; previousName: string | null; secretHash: string | null; isProducer: boolean; domainId: string }>(
      `SELECT id, name, "previousName", "secretHash", "isProducer", "domainId" FROM "ServiceAccount" ORDER BY id`,
    );
    const byId = new Map(rows.rows.map((r) => [r.id, r]));
    expect(byId.get("a-squat")).toMatchObject({ name: "payments-orders-producer", previousName: "orders-producer", secretHash: null });
    expect(byId.get("a-admin")).toMatchObject({ name: "orders-kappa-admin", previousName: "kappa-admin", secretHash: null });
    expect(byId.get("a-dots")).toMatchObject({ name: "payments-analytics-eu", previousName: "payments.analytics.eu" });
    expect(byId.get("a-bare")).toMatchObject({ name: "payments-reconciliation", previousName: "reconciliation" });
    expect(byId.get("a-inner")?.name).toMatch(/^orders-renamed-[0-9a-f]{10}$/);
    expect(byId.get("a-anon")).toMatchObject({ name: "payments-anonymous", previousName: "ANONYMOUS" });
    expect(byId.get("a-ok")).toMatchObject({ name: "payments-ledger", previousName: null, secretHash: "hash" });
    expect(byId.get("a-payprod")).toMatchObject({ name: "payments-producer", previousName: null });
    // orders has a live product and no producer of its own: it gets one, under its own name.
    const producers = rows.rows.filter((r) => r.domainId === "d-orders" && r.isProducer);
    expect(producers.map((p) => p.name)).toEqual(["orders-producer"]);

    const audits = await client.query(`SELECT "entityId", data FROM "AuditEvent" WHERE action = 'serviceAccount.renamed' ORDER BY "entityId"`);
    expect(audits.rows.map((r) => r.entityId)).toEqual(["a-admin", "a-anon", "a-bare", "a-dots", "a-inner", "a-squat"]);
    const reserved = await client.query(`SELECT name, match::text FROM "ReservedPrincipal" ORDER BY name`);
    expect(reserved.rows).toEqual([
      { name: "ANONYMOUS", match: "EXACT" },
      { name: "kappa-", match: "PREFIX" },
      { name: "kappa-admin", match: "EXACT" },
    ]);
  });
});
