import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";

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
   * Default: no limit, as in pg.
   */
  waitMs?: number;
}

export function createPrismaClient(databaseUrl: string, pool: PoolOptions = {}) {
  const url = new URL(databaseUrl);
  const adapter = new PrismaPg({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    max: pool.size ?? Number(url.searchParams.get("connection_limit") ?? 10),
    ...(pool.waitMs !== undefined ? { connectionTimeoutMillis: pool.waitMs } : {}),
    // A short idle timeout lets scripts and tests exit promptly.
    idleTimeoutMillis: 5_000,
  }, url.searchParams.get("schema") ? { schema: url.searchParams.get("schema") ?? undefined } : undefined);
  return new PrismaClient({
    adapter,
    omit: {
      user: { passwordHash: true },
      serviceAccount: { secretHash: true, secretCiphertext: true },
      webhookEndpoint: { secretCiphertext: true },
      apiToken: { secretHash: true },
    },
  });
}

export type Db = ReturnType<typeof createPrismaClient>;
/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
