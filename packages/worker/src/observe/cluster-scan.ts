/*
 * The cluster scan: every topic on the cluster (managed by the catalog or
 * not) and who reads what. It runs on its own, slower interval beside the
 * observer (WORKER_CLUSTER_SCAN_MS) and writes two tables:
 *
 * - ClusterTopic: one row per topic the admin principal can see, with the
 *   product that owns it (its topic name) or none; for unmanaged topics also
 *   partitions, topic-level config overrides, offsets, bytes, ACL bindings
 *   that match it and the consumer groups with commits on it — what an owner
 *   needs to decide whether to claim it.
 * - GroupTopicUsage: one row per (consumer group, topic) with committed
 *   offsets, mapped to the catalog service account whose group prefix holds
 *   it. `lastActiveAt` moves when the group has members or its committed
 *   offsets advanced since the previous scan: this is "observed use".
 *
 * What Kafka lets us observe (and so what lineage can say): consumer groups
 * that commit offsets (OffsetFetch) and their live membership (DescribeGroups).
 * A group's *principal* is not reported by any Kafka API; we attribute a group
 * to an account by the catalog's group-prefix convention, which the ACLs
 * enforce (an account may only use groups under `<account>.`). Consumers that
 * assign partitions themselves and never commit, producers, and anything read
 * by a super user outside the convention are invisible here.
 */
import { Prisma } from "@prisma/client";
import { consumerGroupPrefix, dlqTopicOf, type Db } from "@kappa/catalog";
import type { AclBinding, KafkaCluster, PerPartition, TopicPartitions } from "../kafka/cluster.ts";
import { errorMessage, type Logger } from "../log.ts";
import { DLQ_RULE_SELECT, LIVE_PRODUCT_STATUSES } from "../reconcile/diff.ts";

/** Usage rows of groups no longer seen are kept this long, so "last used" survives an expired group. */
export const USAGE_RETENTION_MS = 90 * 24 * 3600_000;

export interface ClusterScanSummary {
  topics: number;
  unmanaged: number;
  groups: number;
  usages: number;
  unreadableGroups: number;
  durationMs: number;
}

/** ACL bindings that apply to a topic: LITERAL on its name or `*`, PREFIXED on a prefix of it. */
export function aclsForTopic(bindings: AclBinding[], topic: string): AclBinding[] {
  return bindings.filter(
    (b) => b.resourceType === "TOPIC" && (b.patternType === "LITERAL" ? b.resourceName === topic || b.resourceName === "*" : topic.startsWith(b.resourceName)),
  );
}

/** The account whose group prefix holds the group; the longest prefix wins (`a.` and `a.b.` may both be accounts). */
export function accountOfGroup(accounts: { id: string; name: string }[], groupId: string): string | null {
  let best: { id: string; length: number } | null = null;
  for (const a of accounts) {
    const prefix = consumerGroupPrefix(a.name);
    if (groupId.startsWith(prefix) && (!best || prefix.length > best.length)) best = { id: a.id, length: prefix.length };
  }
  return best?.id ?? null;
}

const chunk = <T>(xs: T[], n = 400) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

export class ClusterScanner {
  lastSummary: ClusterScanSummary | null = null;
  lastError: string | null = null;

  constructor(
    private readonly db: Db,
    private readonly cluster: KafkaCluster,
    private readonly log: Logger,
  ) {}

  async scanOnce(now = Date.now()): Promise<ClusterScanSummary> {
    const started = Date.now();
    const at = new Date(now);
    const [topics, products, accounts] = await Promise.all([
      this.cluster.listTopics(),
      this.db.dataProduct.findMany({ where: { status: { in: [...LIVE_PRODUCT_STATUSES] } }, select: { id: true, topicName: true, ...DLQ_RULE_SELECT } }),
      this.db.serviceAccount.findMany({ select: { id: true, name: true } }),
    ]);
    // A product's dead-letter topic (issue 29) is the product's too: never listed as unmanaged, never claimable.
    const productOf = new Map(products.flatMap((p): [string, string][] => (p.qualityRules.length > 0 ? [[p.topicName, p.id], [dlqTopicOf(p.topicName), p.id]] : [[p.topicName, p.id]])));
    const unmanaged = topics.filter((t) => !productOf.has(t));
    const counts = await this.cluster.partitionCounts(topics);
    const refs: TopicPartitions[] = unmanaged.map((topic) => ({ topic, partitions: counts.get(topic) ?? 0 }));
    const [overrides, latest, earliest, local, acls, groupIds] = await Promise.all([
      this.cluster.topicOverrides(unmanaged),
      this.cluster.listOffsets(refs, "latest"),
      this.cluster.listOffsets(refs, "earliest"),
      this.cluster.localBytes(refs),
      this.cluster.describeAcls(),
      this.cluster.listGroups(),
    ]);
    const [descriptions, commits] = await Promise.all([this.cluster.describeGroups(groupIds), this.cluster.allCommittedOffsets(groupIds)]);
    const describedGroups = new Map(descriptions.map((d) => [d.groupId, d]));

    const usages: { groupId: string; topic: string; accountId: string | null; state: string; members: number; committedSum: bigint; partitions: number }[] = [];
    const groupsOfTopic = new Map<string, { groupId: string; state: string; members: number; committedPartitions: number }[]>();
    let unreadable = 0;
    for (const [groupId, c] of commits) {
      if (c.errorCode !== 0) {
        unreadable++;
        continue;
      }
      const d = describedGroups.get(groupId);
      for (const [topic, partitions] of c.topics) {
        let sum = 0n;
        for (const offset of partitions.values()) sum += offset;
        const state = d?.state ?? "Unknown";
        const members = d?.members ?? 0;
        usages.push({ groupId, topic, accountId: accountOfGroup(accounts, groupId), state, members, committedSum: sum, partitions: partitions.size });
        groupsOfTopic.set(topic, [...(groupsOfTopic.get(topic) ?? []), { groupId, state, members, committedPartitions: partitions.size }]);
      }
    }

    const sum = (topic: string, m: PerPartition<bigint | null> | PerPartition<bigint>) => {
      const values = m.get(topic);
      let total = 0n;
      for (let p = 0; p < (counts.get(topic) ?? 0); p++) {
        const v = values?.[p];
        if (v === null || v === undefined) return null;
        total += v;
      }
      return total;
    };
    const topicRows = topics.map((name) => {
      const managed = productOf.has(name);
      return {
        name,
        productId: productOf.get(name) ?? null,
        partitions: counts.get(name) ?? 0,
        configs: managed ? {} : (overrides.get(name) ?? {}),
        endOffset: managed ? null : sum(name, latest),
        earliestOffset: managed ? null : sum(name, earliest),
        sizeBytes: managed || local === null ? null : sum(name, local),
        acls: aclsForTopic(acls, name),
        groups: groupsOfTopic.get(name) ?? [],
      };
    });
    await this.write(topicRows, usages, at);
    const summary = { topics: topics.length, unmanaged: unmanaged.length, groups: groupIds.length, usages: usages.length, unreadableGroups: unreadable, durationMs: Date.now() - started };
    this.lastSummary = summary;
    this.lastError = null;
    return summary;
  }

  private async write(
    topics: { name: string; productId: string | null; partitions: number; configs: Record<string, string>; endOffset: bigint | null; earliestOffset: bigint | null; sizeBytes: bigint | null; acls: AclBinding[]; groups: unknown[] }[],
    usages: { groupId: string; topic: string; accountId: string | null; state: string; members: number; committedSum: bigint; partitions: number }[],
    at: Date,
  ): Promise<void> {
    await this.db.$transaction(
      async (tx) => {
        for (const part of chunk(topics)) {
          await tx.$executeRaw`
            INSERT INTO "ClusterTopic" (name, "productId", partitions, configs, "endOffset", "earliestOffset", "sizeBytes", acls, groups, "observedAt")
            VALUES ${Prisma.join(part.map((t) => Prisma.sql`(${t.name}, ${t.productId}, ${t.partitions}, ${JSON.stringify(t.configs)}::jsonb, ${t.endOffset}, ${t.earliestOffset}, ${t.sizeBytes}, ${JSON.stringify(t.acls)}::jsonb, ${JSON.stringify(t.groups)}::jsonb, ${at})`))}
            ON CONFLICT (name) DO UPDATE SET "productId" = EXCLUDED."productId", partitions = EXCLUDED.partitions, configs = EXCLUDED.configs,
              "endOffset" = EXCLUDED."endOffset", "earliestOffset" = EXCLUDED."earliestOffset", "sizeBytes" = EXCLUDED."sizeBytes",
              acls = EXCLUDED.acls, groups = EXCLUDED.groups, "observedAt" = EXCLUDED."observedAt"`;
        }
        // Topics deleted since the last scan disappear from the browser.
        await tx.$executeRaw`DELETE FROM "ClusterTopic" WHERE "observedAt" < ${at}`;
        for (const part of chunk(usages)) {
          // Active now = members in the group, or its commits moved since the last scan.
          await tx.$executeRaw`
            INSERT INTO "GroupTopicUsage" ("groupId", topic, "serviceAccountId", state, members, "committedSum", "committedPartitions", "firstSeenAt", "lastActiveAt", "observedAt")
            VALUES ${Prisma.join(part.map((u) => Prisma.sql`(${u.groupId}, ${u.topic}, ${u.accountId}, ${u.state}, ${u.members}, ${u.committedSum}, ${u.partitions}, ${at}, ${u.members > 0 ? at : null}, ${at})`))}
            ON CONFLICT ("groupId", topic) DO UPDATE SET "serviceAccountId" = EXCLUDED."serviceAccountId", state = EXCLUDED.state, members = EXCLUDED.members,
              "lastActiveAt" = CASE WHEN EXCLUDED.members > 0 OR EXCLUDED."committedSum" > "GroupTopicUsage"."committedSum" THEN EXCLUDED."observedAt" ELSE "GroupTopicUsage"."lastActiveAt" END,
              "committedSum" = EXCLUDED."committedSum", "committedPartitions" = EXCLUDED."committedPartitions", "observedAt" = EXCLUDED."observedAt"`;
        }
        // A group not seen this scan is gone (deleted, offsets expired): it is no longer consuming.
        await tx.$executeRaw`UPDATE "GroupTopicUsage" SET members = 0, state = 'Gone' WHERE "observedAt" < ${at} AND state <> 'Gone'`;
        await tx.$executeRaw`DELETE FROM "GroupTopicUsage" WHERE "observedAt" < ${new Date(at.getTime() - USAGE_RETENTION_MS)}`;
      },
      { timeout: 60_000 },
    );
  }

  /** Runs scanOnce, logging instead of throwing (the loop keeps going while Kafka is down). */
  async safeScan(): Promise<ClusterScanSummary | null> {
    try {
      return await this.scanOnce();
    } catch (error) {
      this.lastError = errorMessage(error);
      this.log.warn("cluster scan failed", { error: this.lastError });
      return null;
    }
  }
}
