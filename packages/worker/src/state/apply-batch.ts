/*
 * Applies one fetched batch of a partition to the latest-state view, in one
 * transaction with the partition's position: either the entries and the new
 * position both commit, or neither does, so a worker killed at any moment
 * resumes exactly where the view is. Within the batch the last record per key
 * wins (offset order); a null value (tombstone) deletes the key. The position
 * moves only from the offset this worker read from: a second worker that
 * applied the same batch first makes this transaction roll back.
 */
import { Prisma } from "@prisma/client";
import type { Db } from "@kappa/catalog";
import type { FetchedRecord } from "@kappa/kafka-protocol";

/** Timestamps are stored as UTC (Prisma's convention), whatever the session's time zone. */
export const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;

export interface BatchOutcome {
  upserted: number;
  inserted: number;
  deleted: number;
}

export class PositionMovedError extends Error {
  override name = "PositionMovedError";
}

interface Latest {
  key: Buffer;
  record: FetchedRecord;
}

/** The last record per key, in offset order; records without a key cannot be in a compacted view. */
export function latestPerKey(records: readonly FetchedRecord[]): Latest[] {
  const byKey = new Map<string, Latest>();
  for (const r of records) {
    if (r.key === null) continue;
    const k = r.key.toString("hex");
    // Re-inserting moves the key to the end, so the map stays in offset order of the winners.
    byKey.delete(k);
    byKey.set(k, { key: r.key, record: r });
  }
  return [...byKey.values()];
}

const headersJson = (r: FetchedRecord) => JSON.stringify(r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString("base64") })));

export async function applyBatch(
  db: Db,
  view: { productId: string },
  partition: number,
  from: bigint,
  next: bigint,
  highWatermark: bigint,
  records: readonly FetchedRecord[],
): Promise<BatchOutcome> {
  const latest = latestPerKey(records);
  const values = latest.filter((l) => l.record.value !== null);
  const tombstones = latest.filter((l) => l.record.value === null);
  const lastRecord = records[records.length - 1];
  return db.$transaction(
    async (tx) => {
      const moved = await tx.$executeRaw`
        UPDATE "StateViewPartition"
           SET "nextOffset" = ${next}, "endOffset" = ${highWatermark}, "updatedAt" = ${NOW},
               "lastRecordAt" = COALESCE(${lastRecord ? new Date(Number(lastRecord.timestamp)) : null}::timestamp, "lastRecordAt"),
               "caughtUpAt" = CASE WHEN ${next} >= ${highWatermark} THEN ${NOW} ELSE "caughtUpAt" END
         WHERE "productId" = ${view.productId} AND partition = ${partition} AND "nextOffset" = ${from}`;
      if (moved !== 1) throw new PositionMovedError(`partition ${partition} of ${view.productId} moved on from offset ${from}`);
      let inserted = 0;
      if (values.length > 0) {
        // Later wins: a higher offset within the partition; across partitions (a key produced to two of them) the later timestamp.
        const rows = await tx.$queryRaw<{ inserted: boolean }[]>`
          INSERT INTO "StateEntry" ("productId", key, value, partition, "offset", "timestamp", headers)
          SELECT ${view.productId}, decode(u.k, 'hex'), decode(u.v, 'base64'), ${partition}, u.o, timestamp '1970-01-01' + u.t * interval '1 millisecond', u.h::jsonb
            FROM unnest(${values.map((l) => l.key.toString("hex"))}::text[], ${values.map((l) => (l.record.value ?? Buffer.alloc(0)).toString("base64"))}::text[],
                        ${values.map((l) => l.record.offset)}::bigint[], ${values.map((l) => l.record.timestamp)}::bigint[], ${values.map((l) => headersJson(l.record))}::text[]) AS u(k, v, o, t, h)
          ON CONFLICT ("productId", key) DO UPDATE
             SET value = EXCLUDED.value, partition = EXCLUDED.partition, "offset" = EXCLUDED."offset", "timestamp" = EXCLUDED."timestamp", headers = EXCLUDED.headers
           WHERE ("StateEntry".partition = EXCLUDED.partition AND EXCLUDED."offset" > "StateEntry"."offset")
              OR ("StateEntry".partition <> EXCLUDED.partition AND EXCLUDED."timestamp" >= "StateEntry"."timestamp")
          RETURNING (xmax = 0) AS inserted`;
        inserted = rows.filter((r) => r.inserted).length;
      }
      let deleted = 0;
      if (tombstones.length > 0) {
        deleted = await tx.$executeRaw`
          DELETE FROM "StateEntry" AS e
           USING unnest(${tombstones.map((l) => l.key.toString("hex"))}::text[], ${tombstones.map((l) => l.record.timestamp)}::bigint[]) AS u(k, t)
           WHERE e."productId" = ${view.productId} AND e.key = decode(u.k, 'hex')
             AND (e.partition = ${partition} OR e."timestamp" <= timestamp '1970-01-01' + u.t * interval '1 millisecond')`;
      }
      await tx.$executeRaw`
        UPDATE "StateView" SET "keyCount" = GREATEST(0, "keyCount" + ${inserted - deleted}), "lastAppliedAt" = ${NOW}, "updatedAt" = ${NOW}, "lastError" = NULL
         WHERE "productId" = ${view.productId}`;
      return { upserted: values.length, inserted, deleted };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}

/** Empties one partition's part of the view (its data before the log start is gone) and restarts it at `offset`. */
export async function resetPartition(db: Db, productId: string, partition: number, offset: bigint): Promise<number> {
  return db.$transaction(async (tx) => {
    const deleted = await tx.$executeRaw`DELETE FROM "StateEntry" WHERE "productId" = ${productId} AND partition = ${partition}`;
    await tx.$executeRaw`UPDATE "StateViewPartition" SET "nextOffset" = ${offset}, "caughtUpAt" = NULL, "updatedAt" = ${NOW} WHERE "productId" = ${productId} AND partition = ${partition}`;
    await tx.$executeRaw`UPDATE "StateView" SET "keyCount" = GREATEST(0, "keyCount" - ${deleted}), "updatedAt" = ${NOW} WHERE "productId" = ${productId}`;
    return deleted;
  });
}

/** Starts a view over (a rebuild): every entry and position goes, the new generation is recorded. */
export async function resetView(db: Db, productId: string, generation: number): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`DELETE FROM "StateEntry" WHERE "productId" = ${productId}`;
      await tx.$executeRaw`DELETE FROM "StateViewPartition" WHERE "productId" = ${productId}`;
      await tx.$executeRaw`UPDATE "StateView" SET "appliedGeneration" = ${generation}, "keyCount" = 0, status = 'BUILDING', "lastError" = NULL, "updatedAt" = ${NOW} WHERE "productId" = ${productId}`;
    },
    { timeout: 120_000 },
  );
}
