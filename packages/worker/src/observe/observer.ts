/*
 * One observation cycle: what the cluster says about every product topic and
 * every subscriber's consumer groups, written to the catalog as the latest
 * values plus a one-minute-bucket history. Every cluster figure is fetched in
 * bulk (four ListOffsets rounds, one DescribeLogDirs per broker, one
 * ListGroups, one DescribeGroups) so a cycle costs the same few requests for
 * ten topics or a thousand. A figure the cluster cannot give is stored as
 * NULL ("unknown"), never as 0.
 */
import { consumerGroupPrefix, type Db } from "@kappa/catalog";
import { Prisma } from "@prisma/client";
import { partitionKey, type KafkaCluster, type PartitionRef } from "../kafka/cluster.ts";
import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import { GRANTED_SUBSCRIPTION_STATUSES, LIVE_PRODUCT_STATUSES } from "../reconcile/diff.ts";
import { estimateTimeLagMs, OffsetHistory, ratePerSecond } from "./history.ts";

export interface ObserverOptions {
  historyHours: number;
}

export interface ObservationSummary {
  topics: number;
  partitions: number;
  groups: number;
  durationMs: number;
  unknown: string[];
}

interface PartitionFigures {
  partition: number;
  endOffset: bigint | null;
  earliestOffset: bigint | null;
  earliestLocalOffset: bigint | null;
  latestTieredOffset: bigint | null;
  localBytes: bigint | null;
  remoteBytes: bigint | null;
}

const MINUTE = 60_000;

function sumOrNull(values: (bigint | null)[]): bigint | null {
  let total = 0n;
  for (const v of values) {
    if (v === null) return null;
    total += v;
  }
  return total;
}

/**
 * Topic-level LATEST_TIERED: Kafka answers −1 for a partition with nothing in
 * remote storage, so a plain sum would go negative. We sum the partitions that
 * have tiered data and keep −1 for "nothing tiered anywhere".
 */
function tieredTotal(values: (bigint | null)[]): bigint | null {
  if (values.some((v) => v === null)) return null;
  const tiered = values.filter((v): v is bigint => v !== null && v >= 0n);
  return tiered.length === 0 ? -1n : tiered.reduce((a, b) => a + b, 0n);
}

const str = (v: bigint | null) => (v === null ? null : v.toString());

export class Observer {
  readonly history = new OffsetHistory();
  private lastPrune = 0;
  lastSummary: ObservationSummary | null = null;
  lastError: string | null = null;
  /** The error of the last failed cycle (which dependency failed: health/outages.ts). */
  lastFailure: unknown = null;

  constructor(
    private readonly db: Db,
    private readonly cluster: KafkaCluster,
    private readonly options: ObserverOptions,
    private readonly log: Logger,
  ) {}

  async observeOnce(now = Date.now()): Promise<ObservationSummary> {
    const started = Date.now();
    const unknown = new Set<string>();
    const products = await this.db.dataProduct.findMany({
      where: { status: { in: [...LIVE_PRODUCT_STATUSES] } },
      select: { id: true, topicName: true },
    });
    const counts = await this.cluster.partitionCounts(products.map((p) => p.topicName));
    const refs: PartitionRef[] = [];
    for (const [topic, n] of counts) for (let partition = 0; partition < n; partition++) refs.push({ topic, partition });

    const [latest, earliest, earliestLocal, latestTiered, local, remote] = await Promise.all([
      this.cluster.listOffsets(refs, "latest"),
      this.cluster.listOffsets(refs, "earliest"),
      this.cluster.listOffsets(refs, "earliestLocal"),
      this.cluster.listOffsets(refs, "latestTiered"),
      this.cluster.localBytes(refs),
      this.cluster.remoteBytes(refs),
    ]);
    if (local === null) unknown.add("localBytes");
    if (remote === null) unknown.add("remoteBytes");

    const figures = new Map<string, PartitionFigures[]>();
    const seen = new Set<string>();
    for (const r of refs) {
      const key = partitionKey(r.topic, r.partition);
      const f: PartitionFigures = {
        partition: r.partition,
        endOffset: latest.get(key) ?? null,
        earliestOffset: earliest.get(key) ?? null,
        earliestLocalOffset: earliestLocal.get(key) ?? null,
        latestTieredOffset: latestTiered.get(key) ?? null,
        localBytes: local?.get(key) ?? (local ? 0n : null),
        remoteBytes: remote?.get(key) ?? (remote ? 0n : null),
      };
      if (f.earliestLocalOffset === null) unknown.add("earliestLocalOffset");
      if (f.latestTieredOffset === null) unknown.add("latestTieredOffset");
      if (f.endOffset !== null) {
        this.history.add(key, now, f.endOffset);
        seen.add(key);
      }
      figures.set(r.topic, [...(figures.get(r.topic) ?? []), f]);
    }
    this.history.retain(seen);

    const productOfTopic = new Map(products.map((p) => [p.topicName, p.id]));
    const topicRows = [...figures].map(([topic, parts]) => {
      const rates = parts.map((p) => ratePerSecond(this.history.get(partitionKey(topic, p.partition)), now));
      const rate = rates.some((r) => r === null) ? null : rates.reduce<number>((a, b) => a + (b ?? 0), 0);
      return {
        topic,
        productId: productOfTopic.get(topic) ?? null,
        partitions: parts.length,
        endOffset: sumOrNull(parts.map((p) => p.endOffset)) ?? 0n,
        earliestOffset: sumOrNull(parts.map((p) => p.earliestOffset)) ?? 0n,
        earliestLocalOffset: sumOrNull(parts.map((p) => p.earliestLocalOffset)),
        latestTieredOffset: tieredTotal(parts.map((p) => p.latestTieredOffset)),
        localBytes: sumOrNull(parts.map((p) => p.localBytes)),
        remoteBytes: sumOrNull(parts.map((p) => p.remoteBytes)),
        messagesPerSecond: rate,
        detail: parts.map((p) => ({
          partition: p.partition,
          endOffset: str(p.endOffset),
          earliestOffset: str(p.earliestOffset),
          earliestLocalOffset: str(p.earliestLocalOffset),
          latestTieredOffset: str(p.latestTieredOffset),
          localBytes: str(p.localBytes),
          remoteBytes: str(p.remoteBytes),
        })),
      };
    });

    const groupRows = await this.observeGroups(latest, earliest, now);
    await this.write(topicRows, groupRows, now);
    const summary: ObservationSummary = { topics: topicRows.length, partitions: refs.length, groups: new Set(groupRows.map((g) => g.groupId)).size, durationMs: Date.now() - started, unknown: [...unknown].sort() };
    this.lastSummary = summary;
    this.lastError = null;
    return summary;
  }

  private async observeGroups(latest: Map<string, bigint | null>, earliest: Map<string, bigint | null>, now: number) {
    const subs = await this.db.subscription.findMany({
      where: { status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] }, product: { status: { in: [...LIVE_PRODUCT_STATUSES] } } },
      select: { id: true, serviceAccountId: true, serviceAccount: { select: { name: true } }, product: { select: { topicName: true } } },
    });
    if (subs.length === 0) return [];
    const byPrefix = new Map<string, { accountId: string; topics: Map<string, string> }>();
    for (const s of subs) {
      const prefix = consumerGroupPrefix(s.serviceAccount.name);
      const entry = byPrefix.get(prefix) ?? { accountId: s.serviceAccountId, topics: new Map<string, string>() };
      entry.topics.set(s.product.topicName, s.id);
      byPrefix.set(prefix, entry);
    }
    const prefixes = [...byPrefix.keys()];
    const partitionsOf = new Map<string, number[]>();
    for (const key of latest.keys()) {
      const [t, p] = key.split("\u0000");
      if (t !== undefined && p !== undefined) partitionsOf.set(t, [...(partitionsOf.get(t) ?? []), Number(p)]);
    }
    const groupIds = (await this.cluster.listGroups()).filter((g) => prefixes.some((p) => g.startsWith(p)));
    const descriptions = new Map((await this.cluster.describeGroups(groupIds)).map((d) => [d.groupId, d]));
    const rows: {
      groupId: string;
      topic: string;
      subscriptionId: string;
      serviceAccountId: string;
      state: string;
      members: number;
      totalLag: bigint;
      timeLagMs: number | null;
      detail: { partition: number; committedOffset: string | null; endOffset: string | null; lag: string | null }[];
    }[] = [];
    // The longest matching prefix: `a.` and `a.b.` may both be accounts.
    const entryOf = new Map<string, { accountId: string; topics: Map<string, string> }>();
    for (const groupId of groupIds) {
      const prefix = prefixes.filter((p) => groupId.startsWith(p)).sort((a, b) => b.length - a.length)[0];
      const entry = prefix ? byPrefix.get(prefix) : undefined;
      if (entry) entryOf.set(groupId, entry);
    }
    const allCommitted = await this.cluster.committedOffsets([...entryOf].map(([groupId, e]) => ({ groupId, topics: [...e.topics.keys()] })));
    for (const [groupId, entry] of entryOf) {
      const committed = allCommitted.get(groupId) ?? new Map<string, bigint>();
      const description = descriptions.get(groupId);
      for (const [topic, subscriptionId] of entry.topics) {
        const partitions = [...(partitionsOf.get(topic) ?? [])].sort((a, b) => a - b);
        if (!partitions.some((p) => committed.has(partitionKey(topic, p)))) continue; // this group does not consume that topic
        let totalLag = 0n;
        let timeLag: number | null = 0;
        const detail = partitions.map((p) => {
          const key = partitionKey(topic, p);
          const end = latest.get(key) ?? null;
          // No commit yet: a new consumer (auto.offset.reset=earliest) starts at the log start.
          const c = committed.get(key) ?? null;
          const from = c ?? earliest.get(key) ?? null;
          const lag = end !== null && from !== null ? (end > from ? end - from : 0n) : null;
          if (lag !== null) totalLag += lag;
          if (end !== null && from !== null) {
            const t = estimateTimeLagMs(this.history.get(key), from, end, now);
            timeLag = t === null || timeLag === null ? null : Math.max(timeLag, t);
          }
          return { partition: p, committedOffset: str(c), endOffset: str(end), lag: str(lag) };
        });
        rows.push({
          groupId,
          topic,
          subscriptionId,
          serviceAccountId: entry.accountId,
          state: description?.state ?? "Unknown",
          members: description?.members ?? 0,
          totalLag,
          timeLagMs: timeLag,
          detail,
        });
      }
    }
    return rows;
  }

  private async write(
    topics: TopicRow[],
    groups: GroupRow[],
    now: number,
  ): Promise<void> {
    const at = new Date(now);
    const bucket = new Date(Math.floor(now / MINUTE) * MINUTE);
    const chunk = <T>(xs: T[], n = 400) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
    await this.db.$transaction(
      async (tx) => {
        for (const part of chunk(topics)) {
          await tx.$executeRaw`
            INSERT INTO "TopicObservation" (topic, "productId", partitions, "endOffset", "earliestOffset", "earliestLocalOffset", "latestTieredOffset", "localBytes", "remoteBytes", "messagesPerSecond", "partitionDetail", "observedAt")
            VALUES ${Prisma.join(
              part.map(
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
            VALUES ${Prisma.join(part.map((r) => Prisma.sql`(${r.topic}, ${bucket}, ${r.endOffset}, ${r.earliestOffset}, ${r.localBytes}, ${r.remoteBytes}, ${r.messagesPerSecond})`))}
            ON CONFLICT (topic, bucket) DO UPDATE SET "endOffset" = EXCLUDED."endOffset", "earliestOffset" = EXCLUDED."earliestOffset",
              "localBytes" = EXCLUDED."localBytes", "remoteBytes" = EXCLUDED."remoteBytes", "messagesPerSecond" = EXCLUDED."messagesPerSecond"`;
        }
        for (const part of chunk(groups)) {
          await tx.$executeRaw`
            INSERT INTO "ConsumerGroupObservation" ("groupId", topic, "subscriptionId", "serviceAccountId", state, members, "totalLag", "timeLagMs", "partitionDetail", "observedAt")
            VALUES ${Prisma.join(
              part.map(
                (g) =>
                  Prisma.sql`(${g.groupId}, ${g.topic}, ${g.subscriptionId}, ${g.serviceAccountId}, ${g.state}, ${g.members}, ${g.totalLag}, ${g.timeLagMs === null ? null : BigInt(g.timeLagMs)}, ${JSON.stringify(g.detail)}::jsonb, ${at})`,
              ),
            )}
            ON CONFLICT ("groupId", topic) DO UPDATE SET "subscriptionId" = EXCLUDED."subscriptionId", "serviceAccountId" = EXCLUDED."serviceAccountId",
              state = EXCLUDED.state, members = EXCLUDED.members, "totalLag" = EXCLUDED."totalLag", "timeLagMs" = EXCLUDED."timeLagMs",
              "partitionDetail" = EXCLUDED."partitionDetail", "observedAt" = EXCLUDED."observedAt"`;
          await tx.$executeRaw`
            INSERT INTO "ConsumerGroupObservationSample" ("groupId", topic, bucket, "totalLag", "timeLagMs")
            VALUES ${Prisma.join(part.map((g) => Prisma.sql`(${g.groupId}, ${g.topic}, ${bucket}, ${g.totalLag}, ${g.timeLagMs === null ? null : BigInt(g.timeLagMs)})`))}
            ON CONFLICT ("groupId", topic, bucket) DO UPDATE SET "totalLag" = EXCLUDED."totalLag", "timeLagMs" = EXCLUDED."timeLagMs"`;
        }
        // Groups and topics that disappeared (deleted group, revoked subscription, retired product) stop showing stale figures.
        await tx.consumerGroupObservation.deleteMany({ where: { observedAt: { lt: at } } });
        await tx.topicObservation.deleteMany({ where: { observedAt: { lt: at } } });
      },
      { timeout: 30_000 },
    );
    if (now - this.lastPrune >= MINUTE) {
      this.lastPrune = now;
      const cutoff = new Date(now - this.options.historyHours * 3600_000);
      const [t, g] = await Promise.all([
        this.db.topicObservationSample.deleteMany({ where: { bucket: { lt: cutoff } } }),
        this.db.consumerGroupObservationSample.deleteMany({ where: { bucket: { lt: cutoff } } }),
      ]);
      if (t.count + g.count > 0) this.log.debug("pruned observation history", { topicSamples: t.count, groupSamples: g.count });
    }
  }

  /** Runs observeOnce, logging instead of throwing (the loop keeps going while Kafka is down). */
  async safeObserve(): Promise<ObservationSummary | null> {
    try {
      return await this.observeOnce();
    } catch (error) {
      this.lastError = errorMessage(error);
      this.lastFailure = error;
      this.log.warn("observation cycle failed", { error: this.lastError });
      return null;
    }
  }
}

interface TopicRow {
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

interface GroupRow {
  groupId: string;
  topic: string;
  subscriptionId: string;
  serviceAccountId: string;
  state: string;
  members: number;
  totalLag: bigint;
  timeLagMs: number | null;
  detail: unknown[];
}
