/*
 * The observer's writes: latest values upserted into TopicObservation and
 * ConsumerGroupObservation, one history row per minute bucket, rows of topics
 * and groups that went away deleted — all of a cycle in one transaction, so
 * the portal never sees half a cycle. Rows are written in multi-row statements
 * of a few hundred, and only for what the cycle refreshed.
 */
import { Prisma } from "@prisma/client";
import type { Db, Tx } from "@kappa/catalog";
import type { GroupRow } from "./groups.ts";

export interface TopicRow {
  topic: string;
  productId: string | null;
  partitions: number;
  endOffset: bigint;
  earliestOffset: bigint;
  earliestLocalOffset: bigint | null;
  latestTieredOffset: bigint | null;
  localBytes: bigint | null;
  remoteBytes: bigint | null;
  messagesPerSecond: number | null;
  detail: unknown[];
}

export interface CycleWrites {
  topics: TopicRow[];
  groups: GroupRow[];
  /** Topics whose rows (and their groups' rows) go. */
  removedTopics: string[];
  /** (groupId, topic) rows that go. */
  removedGroups: { groupId: string; topic: string }[];
}

const MINUTE = 60_000;

function chunk<T>(xs: T[], n = 400): T[][] {
  return Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
}

export async function writeCycle(db: Db, w: CycleWrites, now: number): Promise<void> {
  if (w.topics.length + w.groups.length + w.removedTopics.length + w.removedGroups.length === 0) return;
  const at = new Date(now);
  const bucket = new Date(Math.floor(now / MINUTE) * MINUTE);
  await db.$transaction(
    async (tx) => {
      for (const part of chunk(w.topics)) await upsertTopics(tx, part, at, bucket);
      for (const part of chunk(w.groups)) await upsertGroups(tx, part, at, bucket);
      if (w.removedTopics.length > 0) {
        await tx.consumerGroupObservation.deleteMany({ where: { topic: { in: w.removedTopics } } });
        await tx.topicObservation.deleteMany({ where: { topic: { in: w.removedTopics } } });
      }
      for (const part of chunk(w.removedGroups, 1000)) {
        await tx.$executeRaw`
          DELETE FROM "ConsumerGroupObservation" g
           USING unnest(${part.map((r) => r.groupId)}::text[], ${part.map((r) => r.topic)}::text[]) AS k("groupId", topic)
           WHERE g."groupId" = k."groupId" AND g.topic = k.topic`;
      }
    },
    { timeout: 30_000 },
  );
}

async function upsertTopics(tx: Tx, rows: TopicRow[], at: Date, bucket: Date): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "TopicObservation" (topic, "productId", partitions, "endOffset", "earliestOffset", "earliestLocalOffset", "latestTieredOffset", "localBytes", "remoteBytes", "messagesPerSecond", "partitionDetail", "observedAt")
    VALUES ${Prisma.join(
      rows.map(
        (r) =>
          Prisma.sql`(${r.topic}, ${r.productId}, ${r.partitions}, ${r.endOffset}, ${r.earliestOffset}, ${r.earliestLocalOffset}, ${r.latestTieredOffset}, ${r.localBytes}, ${r.remoteBytes}, ${r.messagesPerSecond}, ${JSON.stringify(r.detail)}::jsonb, ${at})`,
      ),
    )}
    ON CONFLICT (topic) DO UPDATE SET "productId" = EXCLUDED."productId", partitions = EXCLUDED.partitions, "endOffset" = EXCLUDED."endOffset",
      "earliestOffset" = EXCLUDED."earliestOffset", "earliestLocalOffset" = EXCLUDED."earliestLocalOffset", "latestTieredOffset" = EXCLUDED."latestTieredOffset",
      "localBytes" = EXCLUDED."localBytes", "remoteBytes" = EXCLUDED."remoteBytes", "messagesPerSecond" = EXCLUDED."messagesPerSecond",
      "partitionDetail" = EXCLUDED."partitionDetail", "observedAt" = EXCLUDED."observedAt"`;
  await tx.$executeRaw`
    INSERT INTO "TopicObservationSample" (topic, bucket, "endOffset", "earliestOffset", "localBytes", "remoteBytes", "messagesPerSecond")
    VALUES ${Prisma.join(rows.map((r) => Prisma.sql`(${r.topic}, ${bucket}, ${r.endOffset}, ${r.earliestOffset}, ${r.localBytes}, ${r.remoteBytes}, ${r.messagesPerSecond})`))}
    ON CONFLICT (topic, bucket) DO UPDATE SET "endOffset" = EXCLUDED."endOffset", "earliestOffset" = EXCLUDED."earliestOffset",
      "localBytes" = EXCLUDED."localBytes", "remoteBytes" = EXCLUDED."remoteBytes", "messagesPerSecond" = EXCLUDED."messagesPerSecond"`;
}

async function upsertGroups(tx: Tx, rows: GroupRow[], at: Date, bucket: Date): Promise<void> {
  const timeLag = (g: GroupRow) => (g.timeLagMs === null ? null : BigInt(g.timeLagMs));
  await tx.$executeRaw`
    INSERT INTO "ConsumerGroupObservation" ("groupId", topic, "subscriptionId", "serviceAccountId", state, members, "totalLag", "timeLagMs", "partitionDetail", "observedAt")
    VALUES ${Prisma.join(
      rows.map(
        (g) =>
          Prisma.sql`(${g.groupId}, ${g.topic}, ${g.subscriptionId}, ${g.serviceAccountId}, ${g.state}, ${g.members}, ${g.totalLag}, ${timeLag(g)}, ${JSON.stringify(g.detail)}::jsonb, ${at})`,
      ),
    )}
    ON CONFLICT ("groupId", topic) DO UPDATE SET "subscriptionId" = EXCLUDED."subscriptionId", "serviceAccountId" = EXCLUDED."serviceAccountId",
      state = EXCLUDED.state, members = EXCLUDED.members, "totalLag" = EXCLUDED."totalLag", "timeLagMs" = EXCLUDED."timeLagMs",
      "partitionDetail" = EXCLUDED."partitionDetail", "observedAt" = EXCLUDED."observedAt"`;
  await tx.$executeRaw`
    INSERT INTO "ConsumerGroupObservationSample" ("groupId", topic, bucket, "totalLag", "timeLagMs", "committedOffset", "subscriptionId")
    VALUES ${Prisma.join(rows.map((g) => Prisma.sql`(${g.groupId}, ${g.topic}, ${bucket}, ${g.totalLag}, ${timeLag(g)}, ${committedSum(g)}, ${g.subscriptionId})`))}
    ON CONFLICT ("groupId", topic, bucket) DO UPDATE SET "totalLag" = EXCLUDED."totalLag", "timeLagMs" = EXCLUDED."timeLagMs",
      "committedOffset" = EXCLUDED."committedOffset", "subscriptionId" = EXCLUDED."subscriptionId"`;
}

/** Sum of the group's committed offsets over the partitions (none committed: 0), for the usage ledger's bytes out. */
export function committedSum(g: Pick<GroupRow, "detail">): bigint {
  let sum = 0n;
  for (const d of g.detail) if (d.committedOffset !== null && /^\d+$/.test(d.committedOffset)) sum += BigInt(d.committedOffset);
  return sum;
}

/**
 * Housekeeping, once a minute: rows of topics and groups the observer does
 * not know (left by an earlier run, or by a topic deleted while the worker
 * was down) go, and history older than the window is pruned.
 */
export async function sweep(db: Db, known: { topics: string[]; groups: { groupId: string; topic: string }[] }, historyCutoff: Date) {
  const [topics, groups, topicSamples, groupSamples] = await Promise.all([
    db.$executeRaw`DELETE FROM "TopicObservation" WHERE NOT (topic = ANY(${known.topics}::text[]))`,
    db.$executeRaw`
      DELETE FROM "ConsumerGroupObservation" g
       WHERE NOT EXISTS (SELECT 1 FROM unnest(${known.groups.map((k) => k.groupId)}::text[], ${known.groups.map((k) => k.topic)}::text[]) AS k("groupId", topic)
                          WHERE k."groupId" = g."groupId" AND k.topic = g.topic)`,
    db.topicObservationSample.deleteMany({ where: { bucket: { lt: historyCutoff } } }),
    db.consumerGroupObservationSample.deleteMany({ where: { bucket: { lt: historyCutoff } } }),
  ]);
  return { topics, groups, topicSamples: topicSamples.count, groupSamples: groupSamples.count };
}
