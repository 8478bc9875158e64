import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import type pg from "pg";

export type { Prisma } from "@prisma/client";

/**
 * Creates a Prisma client over node-postgres. Secrets stay out of every read
 * unless a query asks for them by name (`omit`), so a password hash cannot leak
 * into an API response by accident.
 */
export interface PoolOptions {
  /** Connections in the pool (default: the URL's `connection_limit`, else 10). */
  size?: number;
  /**
   * How long a query waits for a pooled connection (or a new one to open)
   * before it fails as an overload (src/overload.ts: a 503, not a 500).
   * Default 10 s. An interactive transaction waits as long to start
   * (Prisma's `maxWait`).
   */
  waitMs?: number;
}

export function createPrismaClient(databaseUrl: string, pool: PoolOptions = {}) {
  const url = new URL(databaseUrl);
  const waitMs = pool.waitMs ?? 10_000;
  // Behind a transaction-mode pooler (Prisma's own `pgbouncer=true` flag) a
  // session setting or a prepared statement does not stay with the client.
  const sessionFeatures = url.searchParams.get("pgbouncer") !== "true";
  const driver: Driver = { pool: null, namedStatements: sessionFeatures };
  const adapter = releasingTransactions(driver, new PrismaPg({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    max: pool.size ?? Number(url.searchParams.get("connection_limit") ?? 10),
    // A short idle timeout lets scripts and tests exit promptly.
    idleTimeoutMillis: 5_000,
    // How long a query waits for a pooled connection (KAPPA_DB_POOL_WAIT_MS; past
    // it the API answers 503) — never forever, even against a database that
    // accepts and hangs.
    connectionTimeoutMillis: waitMs,
    // The hot reads run as named statements (src/read-rows.ts: parsed once per
    // connection); every execution still gets a plan for its own values, as an
    // unnamed statement does, instead of PostgreSQL's generic plan after five.
    ...(sessionFeatures ? { options: "-c plan_cache_mode=force_custom_plan" } : {}),
  }, url.searchParams.get("schema") ? { schema: url.searchParams.get("schema") ?? undefined } : undefined));
  const client = new PrismaClient({
    adapter,
    // A transaction waits for its connection as long as a query does (Prisma's
    // own default is 2 s, so a burst of row-locked actions on a busy pool
    // failed as "Unable to start a transaction" while single queries waited).
    transactionOptions: { maxWait: waitMs },
    omit: {
      user: { passwordHash: true },
      serviceAccount: { secretHash: true, secretCiphertext: true, scramSealed: true },
      webhookEndpoint: { secretCiphertext: true },
      apiToken: { secretHash: true },
    },
  });
  drivers.set(client, driver);
  return client;
}

/** The pg pool Prisma's adapter queries through, once it has connected (null before, and after $disconnect). */
interface Driver {
  pool: pg.Pool | null;
  /** Whether read-rows may prepare named statements on the pool's connections (not behind a transaction pooler). */
  namedStatements: boolean;
}
const drivers = new WeakMap<object, Driver>();

/**
 * The pool under a client createPrismaClient made, for the few hot read
 * statements that skip the ORM (src/read-rows.ts) — the same pool, so the
 * same size, wait and overload rules. null for a transaction client (its
 * statements must run on the transaction's connection) and before Prisma
 * has connected.
 */
export function poolOf(db: Db | Tx): pg.Pool | null {
  return drivers.get(db)?.pool ?? null;
}

/** Whether statements on poolOf(db) may be named (prepared once per connection; plan_cache_mode=force_custom_plan is set). */
export function namesStatements(db: Db | Tx): boolean {
  return drivers.get(db)?.namedStatements ?? false;
}

export type Db = ReturnType<typeof createPrismaClient>;
/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

type AdapterFactory = InstanceType<typeof PrismaPg>;
type Adapter = Awaited<ReturnType<AdapterFactory["connect"]>>;
type Transaction = Awaited<ReturnType<Adapter["startTransaction"]>>;

/**
 * Works around a connection leak in Prisma 6.19 with @prisma/adapter-pg: when
 * the connection of an interactive transaction dies (database restarted,
 * network cut), Prisma's ROLLBACK (or COMMIT) fails and the transaction's
 * pooled client is never released. Each outage then takes pool slots for
 * good, until queries wait forever for a connection and $disconnect() hangs.
 * Here a failed COMMIT/ROLLBACK releases (and so discards) the client, once.
 * It also records the adapter's pool in `driver` (poolOf()).
 */
function releasingTransactions(driver: Driver, factory: AdapterFactory): AdapterFactory {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => guardRelease(await start(isolationLevel));
    // Remember the pool for poolOf() until the adapter is disposed ($disconnect ends it).
    const underlying: unknown = adapter.underlyingDriver();
    driver.pool = isPool(underlying) ? underlying : null;
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      driver.pool = null;
      await dispose();
    };
    return adapter;
  };
  return factory;
}

function isPool(value: unknown): value is pg.Pool {
  return typeof value === "object" && value !== null && "query" in value && "totalCount" in value && typeof value.query === "function";
}

function guardRelease(tx: Transaction): Transaction {
  const client = (tx as { client?: { release(error?: Error | boolean): void } }).client;
  if (!client || typeof client.release !== "function") return tx;
  let released = false;
  const execute = tx.executeRaw.bind(tx);
  tx.executeRaw = async (query) => {
    try {
      return await execute(query);
    } catch (error) {
      if (!released && /^\s*(COMMIT|ROLLBACK)\s*$/i.test(query.sql)) {
        released = true;
        client.release(error instanceof Error ? error : new Error(String(error)));
      }
      throw error;
    }
  };
  const commit = tx.commit.bind(tx);
  const rollback = tx.rollback.bind(tx);
  tx.commit = async () => {
    if (released) return;
    released = true;
    await commit();
  };
  tx.rollback = async () => {
    if (released) return;
    released = true;
    await rollback();
  };
  return tx;
}
