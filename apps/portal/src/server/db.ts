import "server-only";
import { createPrismaClient, type Db } from "@kappa/catalog";
import { env } from "@/env";

declare global {
  // Survives Next's module reloading in development: one pool per process.
  var kappaDb: Db | undefined;
}

/** The portal's one Prisma client, created on first use (never during `next build`). */
export function db(): Db {
  globalThis.kappaDb ??= createPrismaClient(env().DATABASE_URL);
  return globalThis.kappaDb;
}
