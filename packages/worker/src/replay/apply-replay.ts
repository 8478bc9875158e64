/*
 * Applies a governed replay (ReplayRequest): the worker, holding admin
 * rights, moves the group's committed offsets to the targets the subscriber
 * previewed — OffsetCommit outside group management, what Kafka's
 * AdminClient.alterConsumerGroupOffsets sends. Like kafka-consumer-groups
 * --reset-offsets it refuses while the group has members: the group is
 * described first, and the coordinator refuses the commit anyway if a member
 * joined in between. Targets are clamped to the partition's current range
 * (retention may have moved the log start since the preview). Idempotent: a
 * request already APPLIED or REFUSED is left alone.
 */
import { Prisma } from "@prisma/client";
import { notify, type Db } from "@kappa/catalog";
import { ErrorCode } from "@kappa/kafka-protocol";
import { partitionKey, type KafkaCluster } from "../kafka/cluster.ts";
import type { Logger } from "../log.ts";
import { auditAsWorker, type Change } from "../reconcile/entities.ts";

const ACTIVE_GROUP_ERRORS = new Set<number>([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION, ErrorCode.REBALANCE_IN_PROGRESS]);

async function finish(db: Db, replayId: string, status: "APPLIED" | "REFUSED", data: { result?: unknown; error?: string }, log: Logger): Promise<void> {
  await db.$transaction(async (tx) => {
    const moved = await tx.replayRequest.updateMany({
      where: { id: replayId, status: "PENDING" },
      data: { status, error: data.error ?? null, result: data.result === undefined ? Prisma.JsonNull : (JSON.parse(JSON.stringify(data.result)) as Prisma.InputJsonValue), appliedAt: status === "APPLIED" ? new Date() : null },
    });
    if (moved.count !== 1) return;
    const replay = await tx.replayRequest.findUniqueOrThrow({ where: { id: replayId }, include: { subscription: { select: { id: true, consumingDomainId: true, product: { select: { name: true, domainId: true } } } } } });
    await auditAsWorker(tx, status === "APPLIED" ? "subscription.replay-applied" : "subscription.replay-refused", "Subscription", replay.subscriptionId, { replayId, group: replay.groupId, ...(data.error ? { error: data.error } : {}), ...(data.result ? { result: data.result } : {}) });
    await notify(tx, {
      kind: status === "APPLIED" ? "replay.applied" : "replay.refused",
      title: status === "APPLIED" ? `Replay of ${replay.groupId} applied` : `Replay of ${replay.groupId} refused`,
      body: status === "APPLIED" ? `The group reads ${replay.subscription.product.name} again from the new offsets; its lag drains as it catches up.` : (data.error ?? ""),
      link: `/subscriptions/${replay.subscriptionId}`,
      entityType: "Subscription",
      entityId: replay.subscriptionId,
      audience: { domainMembers: [replay.subscription.consumingDomainId] },
      webhookDomains: [replay.subscription.consumingDomainId],
      data: { replayId, group: replay.groupId },
    });
  });
  log.info(status === "APPLIED" ? "replay applied" : "replay refused", { replay: replayId, error: data.error });
}

export async function applyReplay(ctx: { db: Db; cluster: KafkaCluster; log: Logger }, replayId: string): Promise<Change[]> {
  const { db, cluster, log } = ctx;
  const replay = await db.replayRequest.findUnique({ where: { id: replayId }, include: { subscription: { select: { status: true } } } });
  if (!replay || replay.status !== "PENDING") return [];
  if (replay.subscription.status !== "ACTIVE" && replay.subscription.status !== "APPROVED") {
    await finish(db, replayId, "REFUSED", { error: `The subscription is ${replay.subscription.status}; the group has no access any more.` }, log);
    return [];
  }
  const [description] = await cluster.describeGroups([replay.groupId]);
  if (description && description.members > 0) {
    await finish(db, replayId, "REFUSED", { error: `${replay.groupId} has ${description.members} active member${description.members === 1 ? "" : "s"} (state ${description.state}); stop its consumers and request the replay again.` }, log);
    return [];
  }
  const targets = (Array.isArray(replay.targets) ? replay.targets : []).flatMap((t) => (t && typeof t === "object" && !Array.isArray(t) && typeof t.partition === "number" && typeof t.offset === "string" ? [{ partition: t.partition, offset: BigInt(t.offset) }] : []));
  const count = (await cluster.partitionCounts([replay.topic])).get(replay.topic) ?? 0;
  const spec = [{ topic: replay.topic, partitions: count }];
  const [earliest, latest] = await Promise.all([cluster.listOffsets(spec, "earliest"), cluster.listOffsets(spec, "latest")]);
  const offsets = targets
    .filter((t) => t.partition < count)
    .map((t) => {
      const lo = earliest.get(replay.topic)?.[t.partition] ?? 0n;
      const hi = latest.get(replay.topic)?.[t.partition] ?? t.offset;
      return { topic: replay.topic, partition: t.partition, offset: t.offset < lo ? lo : t.offset > hi ? hi : t.offset, asked: t.offset };
    });
  const errors = await cluster.commitGroupOffsets(replay.groupId, offsets);
  const codes = [...errors.values()];
  if (codes.some((c) => ACTIVE_GROUP_ERRORS.has(c))) {
    await finish(db, replayId, "REFUSED", { error: `${replay.groupId} became active while the replay was applied (the coordinator refused the commit); stop its consumers and request it again.` }, log);
    return [];
  }
  const failed = [...errors].filter(([, c]) => c !== 0);
  if (failed.length > 0) throw new Error(`OffsetCommit for ${replay.groupId} failed: ${failed.map(([k, c]) => `${k.split("\u0000").join("-")}: error ${c}`).join(", ")}`);
  const committed = (await cluster.committedOffsets([{ groupId: replay.groupId, topics: new Set([replay.topic]) }])).get(replay.groupId) ?? new Map<string, bigint>();
  const result = offsets.map((o) => ({ partition: o.partition, asked: o.asked.toString(), committed: (committed.get(partitionKey(o.topic, o.partition)) ?? -1n).toString() }));
  await finish(db, replayId, "APPLIED", { result }, log);
  return [];
}
