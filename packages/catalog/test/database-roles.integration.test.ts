import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyGrants, provisionDatabaseRoles, type DatabaseRoleNames, type ProvisionedRoles } from "../src/database-roles.ts";
import { migrateDatabase } from "../src/migrate.ts";

/*
 * Issue 8, finding 9: the portal connected to PostgreSQL as a superuser. The
 * embedded default now gives the portal and the worker their own roles that
 * can read and write rows but not rewrite the audit log, change the schema or
 * touch each other's tables; migrations run as the owner.
 */
const suffix = randomBytes(4).toString("hex");
const roles: DatabaseRoleNames = { owner: `kappa_owner_${suffix}`, portal: `kappa_portal_${suffix}`, worker: `kappa_worker_${suffix}` };
const database = `kappa_roles_${suffix}`;
let urls: ProvisionedRoles;

async function as<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

const sqlState = (promise: Promise<unknown>) => promise.then(() => "ok", (e: { code?: string }) => e.code ?? "error");

beforeAll(async () => {
  const adminUrl = inject("pgAdminUrl");
  await as(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`));
  // A data folder from before this change: migrated by the superuser, so the superuser owns every table.
  const legacy = new URL(adminUrl);
  legacy.pathname = `/${database}`;
  await migrateDatabase(legacy.toString());
  urls = await provisionDatabaseRoles(adminUrl, database, { owner: "owner-pw", portal: "portal-pw", worker: "worker-pw" }, roles);
  expect(await migrateDatabase(urls.ownerUrl)).toEqual([]);
  await applyGrants(urls.ownerUrl, roles);
  // Running it all again (every start does) changes nothing and fails on nothing.
  await provisionDatabaseRoles(adminUrl, database, { owner: "owner-pw", portal: "portal-pw", worker: "worker-pw" }, roles);
  await applyGrants(urls.ownerUrl, roles);
});

afterAll(async () => {
  await as(inject("pgAdminUrl"), async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    for (const r of Object.values(roles) as string[]) await c.query(`DROP ROLE IF EXISTS ${r}`);
  });
});

describe("database roles", () => {
  it("the portal role cannot UPDATE or DELETE audit events (permission denied, not just the trigger)", async () => {
    await as(urls.portalUrl, async (c) => {
      await c.query(`INSERT INTO "AuditEvent" ("actorEmail", action, "entityType", "entityId") VALUES ('e2e', 'test.appended', 'Test', '1')`);
      expect((await c.query(`SELECT count(*)::int AS n FROM "AuditEvent"`)).rows[0].n).toBe(1);
      expect(await sqlState(c.query(`UPDATE "AuditEvent" SET action = 'rewritten'`))).toBe("42501");
      expect(await sqlState(c.query(`DELETE FROM "AuditEvent"`))).toBe("42501");
      expect(await sqlState(c.query(`TRUNCATE "AuditEvent"`))).toBe("42501");
      expect(await sqlState(c.query(`ALTER TABLE "AuditEvent" DISABLE TRIGGER ALL`))).toBe("42501");
    });
    await as(urls.workerUrl, async (c) => {
      expect(await sqlState(c.query(`UPDATE "AuditEvent" SET action = 'rewritten'`))).toBe("42501");
      expect(await sqlState(c.query(`DELETE FROM "AuditEvent"`))).toBe("42501");
    });
  });

  it("neither app role is a superuser or may change the schema; migrations bookkeeping is the owner's", async () => {
    for (const url of [urls.portalUrl, urls.workerUrl]) {
      await as(url, async (c) => {
        const me = await c.query(`SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user`);
        expect(me.rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false });
        expect(await sqlState(c.query(`CREATE TABLE "Sneaky" (id int)`))).toBe("42501");
        expect(await sqlState(c.query(`ALTER TABLE "DataProduct" ADD COLUMN sneaky int`))).toBe("42501");
        expect(await sqlState(c.query(`SELECT * FROM "_prisma_migrations"`))).toBe("42501");
        expect(await sqlState(c.query(`SELECT count(*) FROM "DataProduct"`))).toBe("ok");
      });
    }
    const owners = await as(urls.ownerUrl, (c) => c.query(`SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND relkind = 'r'`));
    expect(owners.rows).toEqual([{ owner: roles.owner }]);
  });

  it("observations are the worker's: the portal reads them, only the worker writes them", async () => {
    const insert = `INSERT INTO "WorkerInstance" ("workerId", status) VALUES ($1, 'ready')`;
    expect(await as(urls.portalUrl, (c) => sqlState(c.query(insert, ["from-portal"])))).toBe("42501");
    expect(await as(urls.workerUrl, (c) => sqlState(c.query(insert, ["from-worker"])))).toBe("ok");
    expect(await as(urls.portalUrl, (c) => sqlState(c.query(`SELECT * FROM "WorkerInstance"`)))).toBe("ok");
    // The cluster scan, freshness and latest-state entries too.
    for (const table of ["ClusterTopic", "GroupTopicUsage", "ProductFreshness", "ProductFreshnessSample", "StateEntry", "StateViewPartition", "UsageRecord", "DeadLetterSample", "ClusterBroker", "ClusterBrokerOutage"]) {
      expect(await as(urls.portalUrl, (c) => sqlState(c.query(`DELETE FROM "${table}"`))), table).toBe("42501");
      expect(await as(urls.workerUrl, (c) => sqlState(c.query(`DELETE FROM "${table}"`))), table).toBe("ok");
      expect(await as(urls.portalUrl, (c) => sqlState(c.query(`SELECT count(*) FROM "${table}"`))), table).toBe("ok");
    }
  });

  it("a table a later migration creates gets the grants by itself (default privileges)", async () => {
    await as(urls.ownerUrl, (c) => c.query(`CREATE TABLE "LaterFeature" (id serial PRIMARY KEY, note text)`));
    for (const url of [urls.portalUrl, urls.workerUrl]) {
      expect(await as(url, (c) => sqlState(c.query(`INSERT INTO "LaterFeature" (note) VALUES ('x')`)))).toBe("ok");
    }
    expect(await as(urls.portalUrl, (c) => sqlState(c.query(`DROP TABLE "LaterFeature"`)))).toBe("42501");
  });
});
