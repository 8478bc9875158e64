import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { REPO_ROOT } from "./migrate.ts";

/*
 * Least-privilege database roles (issue 8, finding 9): an owner role that
 * runs migrations and owns every object, and login roles for the portal and
 * the worker that may only read and write rows — no superuser, no DDL, and no
 * UPDATE/DELETE on the audit log. The grants are prisma/database-roles.sql,
 * the same file the production docs tell operators to run, so the two cannot
 * drift apart.
 */

export interface DatabaseRoleNames {
  owner: string;
  portal: string;
  worker: string;
}

export const DEFAULT_ROLE_NAMES: DatabaseRoleNames = { owner: "kappa_owner", portal: "kappa_portal", worker: "kappa_worker" };

export const GRANTS_FILE = path.join(REPO_ROOT, "prisma", "database-roles.sql");

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function ident(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a plain PostgreSQL role name (lower-case letters, digits, "_")`);
  return `"${name}"`;
}

function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The grants file with psql's :"owner" / :"portal" / :"worker" variables filled in. */
export async function grantsSql(roles: DatabaseRoleNames): Promise<string> {
  const template = await readFile(GRANTS_FILE, "utf8");
  return template.replace(/:"(owner|portal|worker)"/g, (_m, key: keyof DatabaseRoleNames) => ident(roles[key]));
}

/** Applies the grants as the owner (after migrations; idempotent). */
export async function applyGrants(ownerUrl: string, roles: DatabaseRoleNames): Promise<void> {
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query(await grantsSql(roles));
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw new Error(`Applying ${path.relative(REPO_ROOT, GRANTS_FILE)} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    await client.end();
  }
}

export interface ProvisionedRoles {
  ownerUrl: string;
  portalUrl: string;
  workerUrl: string;
}

/**
 * For the embedded database, as its superuser: creates (or re-passwords) the
 * three login roles, makes the owner role own the database, its public schema
 * and every object in it — data folders from before this change have tables
 * owned by the superuser — and lets only the three roles connect. Returns the
 * connection URLs; run migrations with ownerUrl, then applyGrants.
 */
export async function provisionDatabaseRoles(
  adminUrl: string,
  database: string,
  passwords: DatabaseRoleNames,
  roles: DatabaseRoleNames = DEFAULT_ROLE_NAMES,
): Promise<ProvisionedRoles> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (const key of ["owner", "portal", "worker"] as const) {
      const exists = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [roles[key]]);
      const verb = exists.rowCount === 0 ? "CREATE" : "ALTER";
      await admin.query(`${verb} ROLE ${ident(roles[key])} WITH LOGIN PASSWORD ${literal(passwords[key])} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`);
    }
    const db = ident(database);
    await admin.query(`ALTER DATABASE ${db} OWNER TO ${ident(roles.owner)}`);
    await admin.query(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`);
    await admin.query(`GRANT CONNECT ON DATABASE ${db} TO ${ident(roles.portal)}, ${ident(roles.worker)}`);
  } finally {
    await admin.end();
  }
  const inDb = new URL(adminUrl);
  inDb.pathname = `/${encodeURIComponent(database)}`;
  const client = new pg.Client({ connectionString: inDb.toString() });
  await client.connect();
  try {
    await transferOwnership(client, roles.owner);
  } finally {
    await client.end();
  }
  const urlFor = (role: string, password: string) => {
    const u = new URL(inDb.toString());
    u.username = encodeURIComponent(role);
    u.password = encodeURIComponent(password);
    return u.toString();
  };
  return { ownerUrl: urlFor(roles.owner, passwords.owner), portalUrl: urlFor(roles.portal, passwords.portal), workerUrl: urlFor(roles.worker, passwords.worker) };
}

/** Everything in schema public that someone else owns becomes the owner's (extension members excepted). */
async function transferOwnership(client: pg.Client, owner: string): Promise<void> {
  const o = ident(owner);
  await client.query(`ALTER SCHEMA public OWNER TO ${o}`);
  const notExtension = (oid: string, catalog: string) =>
    `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = ${oid} AND d.classid = '${catalog}'::regclass AND d.deptype = 'e')`;
  const tables = await client.query<{ name: string }>(
    `SELECT format('%I', c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND pg_get_userbyid(c.relowner) <> $1 AND ${notExtension("c.oid", "pg_class")}`,
    [owner],
  );
  for (const t of tables.rows) await client.query(`ALTER TABLE public.${t.name} OWNER TO ${o}`);
  // Sequences owned by a column moved with their table; the rest move alone.
  const sequences = await client.query<{ name: string }>(
    `SELECT format('%I', c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'S' AND pg_get_userbyid(c.relowner) <> $1 AND ${notExtension("c.oid", "pg_class")}
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))`,
    [owner],
  );
  for (const s of sequences.rows) await client.query(`ALTER SEQUENCE public.${s.name} OWNER TO ${o}`);
  const functions = await client.query<{ signature: string }>(
    `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> $1 AND ${notExtension("p.oid", "pg_proc")}`,
    [owner],
  );
  for (const f of functions.rows) await client.query(`ALTER FUNCTION ${f.signature} OWNER TO ${o}`);
  const types = await client.query<{ name: string }>(
    `SELECT format('%I', t.typname) AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') AND pg_get_userbyid(t.typowner) <> $1 AND ${notExtension("t.oid", "pg_type")}`,
    [owner],
  );
  for (const t of types.rows) await client.query(`ALTER TYPE public.${t.name} OWNER TO ${o}`);
}

/** The role a connection URL logs in as (for grants on roles an operator created). */
export function roleOfUrl(url: string): string {
  return decodeURIComponent(new URL(url).username);
}
