import type { Db } from "./db.ts";
import { TooManyRequestsError } from "./errors.ts";

/*
 * Fixed-window counters in PostgreSQL, so every portal instance counts the
 * same requests: one atomic upsert per request (INSERT … ON CONFLICT DO
 * UPDATE … RETURNING), no read-modify-write race. Old windows are deleted
 * now and then by the same call.
 */
export async function consumeRateLimit(db: Db, key: string, limit: number, windowMs: number, what: string): Promise<void> {
  const now = Date.now();
  const windowStart = new Date(now - (now % windowMs));
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO "RateLimitBucket" (key, "windowStart", count) VALUES (${key}, ${windowStart}, 1)
    ON CONFLICT (key, "windowStart") DO UPDATE SET count = "RateLimitBucket".count + 1
    RETURNING count`;
  const count = Number(rows[0]?.count ?? 1);
  if (Math.random() < 0.01) await db.rateLimitBucket.deleteMany({ where: { windowStart: { lt: new Date(now - 10 * windowMs) } } });
  if (count > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000));
    throw new TooManyRequestsError(`At most ${limit} ${what} per ${Math.round(windowMs / 1000)} s; try again in ${retryAfterSeconds} s.`, retryAfterSeconds);
  }
}
