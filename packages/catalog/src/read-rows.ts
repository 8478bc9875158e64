import { createHash } from "node:crypto";
import { Prisma } from "@prisma/client";
import pg from "pg";
import { namesStatements, poolOf, type Db, type Tx } from "./db.ts";

/**
 * Runs a read statement built with Prisma.sql straight on the client's pg
 * pool, or through `$queryRaw` where there is none (a transaction client,
 * whose statements must run on its own connection, or before Prisma has
 * connected). For the statements every request runs — the actor, the
 * search's count, ids, rows and estimate: the ORM's raw-query path goes
 * through its query engine and back, and cost more client CPU than these
 * sub-millisecond statements (issue 14, notes/catalog-speed.md).
 *
 * Values come back as `$queryRaw` hands them (test/search-rows.integration.test.ts
 * compares column for column): `timestamp` (Prisma's DateTime, stored as UTC)
 * as a Date, `numeric` as Prisma.Decimal, `int8` as bigint; everything else
 * with pg's own parsers (text, enums as text, int4, floats, boolean, text[], json).
 * (No statement here reads a timestamp[]: pg would parse that as local time.)
 */
export async function readRows<T extends pg.QueryResultRow>(db: Db | Tx, statement: Prisma.Sql): Promise<T[]> {
  const pool = poolOf(db);
  if (!pool) return db.$queryRaw<T[]>(statement);
  const name = namesStatements(db) ? statementName(statement.text) : undefined;
  try {
    return (await pool.query<T>({ name, text: statement.text, values: statement.values, types: AS_PRISMA })).rows;
  } catch (error) {
    // A table's columns changed under a connection's prepared statement (a
    // migration while this process runs): PostgreSQL refuses to run it again.
    // This text runs unnamed from now on.
    if (!name || !isStalePreparedStatement(error)) throw error;
    NAMES.set(statement.text, null);
    return (await pool.query<T>({ text: statement.text, values: statement.values, types: AS_PRISMA })).rows;
  }
}

/**
 * Named statements: PostgreSQL parses and analyses a statement's text once
 * per connection instead of on every execution (the search's statements are
 * long; measured over the catalog bench's mix at 100,000 products: 8.3–8.7 →
 * 7.0–7.6 CPU-ms of PostgreSQL per request, and less client CPU, as the text
 * is not sent again). Plans are unchanged: the pool's connections run with
 * plan_cache_mode=force_custom_plan (db.ts), so every execution is planned
 * for its own values, as an unnamed statement is. The name is a hash of the
 * text (the same text, the same name, on every connection). The texts are
 * the catalog's own (values are parameters), so they are few; past
 * MAX_NAMED distinct texts the rest run unnamed, so a process never holds
 * an unbounded number per connection.
 */
const NAMES = new Map<string, string | null>();
const MAX_NAMED = 500;

function statementName(text: string): string | undefined {
  const known = NAMES.get(text);
  if (known !== undefined) return known ?? undefined;
  if (NAMES.size >= MAX_NAMED) return undefined;
  const name = `kappa_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
  NAMES.set(text, name);
  return name;
}

/** "cached plan must not change result type" (SQLSTATE 0A000). */
function isStalePreparedStatement(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "0A000" && /cached plan must not change result type/.test(String((error as { message?: unknown }).message));
}

const TIMESTAMP = 1114;
const NUMERIC = 1700;
const INT8 = 20;

/** A `timestamp without time zone` as Prisma reads it: the wall time is UTC. */
function utcDate(text: string): Date {
  return new Date(`${text.replace(" ", "T")}Z`);
}

/** pg-types' own parsers (its typings say `any`; a text parser takes the column's text). */
const builtinParser = pg.types.getTypeParser as (oid: number, format: "text") => (text: string) => unknown;

/** pg's parser for a column type, with Prisma's readings of the types above (pg asks for text-format parsers only). */
function parser(oid: number): (text: string) => unknown {
  if (oid === TIMESTAMP) return utcDate;
  if (oid === NUMERIC) return (text) => new Prisma.Decimal(text);
  if (oid === INT8) return (text) => BigInt(text);
  return builtinParser(oid, "text");
}

const AS_PRISMA = { getTypeParser: parser as pg.CustomTypesConfig["getTypeParser"] };
