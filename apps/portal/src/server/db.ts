import "server-only";
import { createPrismaClient, type Db } from "@kappa/catalog";
import { env } from "@/env";

declare global {
  // Survives Next's module reloading in development: one pool per process.
  var kappaDb: Db | undefined;
}

/** The portal's one Prisma client, created on first use (never during `next build`). */
export function db(): Db {
  const config = env();
  globalThis.kappaDb ??= createPrismaClient(config.DATABASE_URL, { size: config.KAPPA_DB_POOL_SIZE, waitMs: config.KAPPA_DB_POOL_WAIT_MS });
  return globalThis.kappaDb;
}
