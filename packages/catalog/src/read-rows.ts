import { Prisma } from "@prisma/client";
import pg from "pg";
import { poolOf, type Db, type Tx } from "./db.ts";

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
  return (await pool.query<T>({ text: statement.text, values: statement.values, types: AS_PRISMA })).rows;
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
