import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { defineConfig } from "prisma/config";

// PostgreSQL's catalog types `name` and `"char"` (and their arrays) appear in the
// schema engine's introspection queries, and the pg driver adapter cannot map
// them. They are text on the wire, so we report them as text.
const TEXT_OID = 25;
const TEXT_ARRAY_OID = 1009;
const AS_TEXT: Record<number, number> = { 18: TEXT_OID, 19: TEXT_OID, 1002: TEXT_ARRAY_OID, 1003: TEXT_ARRAY_OID };

function reportCatalogTypesAsText(res: pg.QueryResult | undefined): void {
  for (const field of res?.fields ?? []) {
    const mapped = AS_TEXT[field.dataTypeID];
    if (mapped !== undefined) field.dataTypeID = mapped;
  }
}

class CatalogTypesAsTextClient extends pg.Client {
  // pg's query() is heavily overloaded (promise or callback); forward it as is.
  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-member-access -- the overloads are forwarded unchanged */
  override query(...args: any[]): any {
    const last = args[args.length - 1];
    if (typeof last === "function") {
      args[args.length - 1] = (err: Error | null, res: pg.QueryResult) => {
        reportCatalogTypesAsText(res);
        last(err, res);
      };
      // @ts-expect-error forwarding pg's overloads unchanged
      return super.query(...args);
    }
    // @ts-expect-error forwarding pg's overloads unchanged
    const result = super.query(...args);
    return typeof result?.then === "function"
      ? result.then((res: pg.QueryResult) => (reportCatalogTypesAsText(res), res))
      : result;
  }
  /* eslint-enable */
}

type PgAdapter = Awaited<ReturnType<PrismaPg["connect"]>>;

/**
 * The adapter runs a migration script by splitting it on ";", which breaks
 * dollar-quoted function bodies and applies a migration statement by statement.
 * PostgreSQL's simple-query protocol runs a multi-statement script as one
 * implicit transaction, so we hand it the whole file: a migration applies
 * completely or not at all.
 */
function runScriptsWhole(adapter: PgAdapter): PgAdapter {
  adapter.executeScript = async (script: string) => {
    await adapter.underlyingDriver().query(script);
  };
  return adapter;
}

function adapterFromUrl() {
  const raw = process.env.DATABASE_URL;
  if (!raw) throw new Error("DATABASE_URL must be set for Prisma migrations (npm start sets it for the embedded database).");
  const url = new URL(raw);
  const factory = new PrismaPg({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
    idleTimeoutMillis: 100,
    Client: CatalogTypesAsTextClient,
  });
  const connect = factory.connect.bind(factory);
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connect = async () => runScriptsWhole(await connect());
  factory.connectToShadowDb = async () => runScriptsWhole(await connectToShadowDb());
  return factory;
}

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => adapterFromUrl(),
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
});
