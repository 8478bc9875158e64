import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { consumerGroupPrefix } from "../naming.ts";
import { parsePartitionLag, parsePartitionOffsets } from "../observations/figures.ts";
import { canInDomain } from "../permissions.ts";
import type { RecordSource } from "../records/source.ts";
import { consumptionRate, partitionReplayFigures, replayTotals, type PartitionReplayFigures, type ReplayTotals } from "./figures.ts";
import { replayInput, type ReplayTarget } from "./inputs.ts";

/*
 * The preview of a governed replay: where each partition of the group would
 * go, what it will read, from which tier, and how long that takes at the
 * group's recent pace. Offsets come from the cluster (the message browser's
 * read-only principal: log start, end, offsets for a timestamp); the group's
 * committed offsets, members and tier figures from the worker's latest
 * observation. The worker checks the group again when it applies the reset.
 */

export interface ReplayPlan {
  subscriptionId: string;
  groupId: string;
  topic: string;
  spec: ReplayTarget;
  /** Why the replay cannot run now (active members), or null. */
  blocked: string | null;
  group: { state: string; members: number; observedAt: string | null };
  partitions: PartitionReplayFigures[];
  totals: ReplayTotals;
  /** Records/s the group consumed over the last minutes; null: unknown. */
  rate: number | null;
  /** Seconds to read the replayed records at that rate; null: unknown. */
  etaSeconds: number | null;
  targets: { partition: number; offset: string }[];
  notes: string[];
}

export async function planReplay(db: Db | Tx, actor: Actor, subscriptionId: string, rawInput: unknown, source: RecordSource): Promise<ReplayPlan & { dryRun: boolean }> {
  const input = parseInput(replayInput, rawInput);
  const sub = await db.subscription.findUnique({ where: { id: subscriptionId }, include: { product: { select: { topicName: true, status: true, name: true } }, serviceAccount: { select: { name: true } } } });
  if (!sub) throw new NotFoundError("Subscription", subscriptionId);
  if (!canInDomain(actor, "subscription:replay", sub.consumingDomainId)) throw new ForbiddenError("Only owners of the subscribing domain can replay its consumer groups.");
  if (sub.status !== "ACTIVE" && sub.status !== "APPROVED") throw new ConflictError(`The subscription is ${sub.status}: it has no access to replay.`, "NOT_GRANTED");
  const topic = sub.product.topicName;
  const prefix = consumerGroupPrefix(sub.serviceAccount.name);
  const observed = await db.consumerGroupObservation.findMany({ where: { topic, groupId: { startsWith: prefix } }, orderBy: { observedAt: "desc" } });
  const groupId = input.group ?? observed[0]?.groupId;
  if (!groupId) throw new ValidationError("Some fields need attention.", { group: [`No consumer group of ${sub.serviceAccount.name} has been seen on this topic yet; name the group (it must start with "${prefix}").`] });
  if (!groupId.startsWith(prefix) || groupId.length === prefix.length) throw new ValidationError("Some fields need attention.", { group: [`Your account's consumer groups start with "${prefix}"; ${groupId} is not one of them.`] });
  const obs = observed.find((o) => o.groupId === groupId) ?? null;
  const committed = new Map(parsePartitionLag(obs?.partitionDetail).flatMap((p) => (p.committedOffset === null ? [] : [[p.partition, BigInt(p.committedOffset)] as const])));

  const bounds = await source.bounds(topic);
  const notes: string[] = [];
  const byPartition = new Map(bounds.map((b) => [b.partition, b]));
  const targets = new Map<number, bigint>();
  const spec = input.to;
  if (spec === "earliest") for (const b of bounds) targets.set(b.partition, b.earliest);
  else if (spec === "latest") for (const b of bounds) targets.set(b.partition, b.end);
  else if ("timestamp" in spec) {
    const found = await source.offsetsForTimestamp(topic, bounds.map((b) => b.partition), BigInt(spec.timestamp));
    for (const b of bounds) targets.set(b.partition, found.get(b.partition) ?? b.end);
  } else if ("offsets" in spec) {
    const errors: string[] = [];
    for (const o of spec.offsets) {
      const b = byPartition.get(o.partition);
      if (!b) errors.push(`${topic} has no partition ${o.partition}.`);
      else if (BigInt(o.offset) < b.earliest) errors.push(`Partition ${o.partition}: offset ${o.offset} is beyond the replay window, which starts at ${b.earliest}.`);
      else if (BigInt(o.offset) > b.end) errors.push(`Partition ${o.partition}: offset ${o.offset} is past the end (${b.end}).`);
      else targets.set(o.partition, BigInt(o.offset));
    }
    if (errors.length > 0) throw new ValidationError("Some fields need attention.", { to: errors });
  } else {
    for (const b of bounds) {
      const from = committed.get(b.partition) ?? b.earliest;
      const want = from + BigInt(spec.shiftBy);
      // As Kafka's tool does, a shift stops at the log start or the end.
      const clamped = want < b.earliest ? b.earliest : want > b.end ? b.end : want;
      if (clamped !== want) notes.push(`Partition ${b.partition}: the shift stops at ${clamped} (${want < b.earliest ? "the start of the replay window" : "the end"}).`);
      targets.set(b.partition, clamped);
    }
  }

  const topicObs = await db.topicObservation.findUnique({ where: { topic } });
  const tiers = new Map(parsePartitionOffsets(topicObs?.partitionDetail).map((p) => [p.partition, p]));
  const partitions = [...targets].sort((a, b) => a[0] - b[0]).map(([partition, target]) => {
    const b = byPartition.get(partition)!;
    const t = tiers.get(partition);
    const earliestLocal = t?.earliestLocalOffset ?? null;
    const localRecords = earliestLocal === null || t?.endOffset === null || t?.endOffset === undefined ? null : t.endOffset - earliestLocal;
    const remoteRecords = earliestLocal === null || t?.earliestOffset === null || t?.earliestOffset === undefined ? null : earliestLocal - t.earliestOffset;
    return partitionReplayFigures({
      partition,
      earliest: b.earliest,
      end: b.end,
      committed: committed.get(partition) ?? null,
      target,
      earliestLocal: earliestLocal === null ? null : BigInt(earliestLocal),
      localBytesPerRecord: localRecords && t?.localBytes !== null && t?.localBytes !== undefined ? t.localBytes / localRecords : null,
      remoteBytesPerRecord: remoteRecords && t?.remoteBytes !== null && t?.remoteBytes !== undefined ? t.remoteBytes / remoteRecords : null,
    });
  });
  if (!topicObs) notes.push("The worker has not observed the topic yet: the split between object storage and local disk is unknown.");
  if (!obs) notes.push(`The worker has not observed ${groupId} on this topic yet: it is treated as having no committed offsets.`);
  const since = new Date(Date.now() - 10 * 60_000);
  const [topicSamples, lagSamples] = await Promise.all([
    db.topicObservationSample.findMany({ where: { topic, bucket: { gte: since } }, select: { bucket: true, endOffset: true } }),
    db.consumerGroupObservationSample.findMany({ where: { topic, groupId, bucket: { gte: since } }, select: { bucket: true, totalLag: true } }),
  ]);
  const rate = consumptionRate(topicSamples, lagSamples);
  const totals = replayTotals(partitions);
  const members = obs?.members ?? 0;
  return {
    subscriptionId,
    groupId,
    topic,
    spec,
    dryRun: input.dryRun === true,
    blocked: members > 0 ? `${groupId} has ${members} active member${members === 1 ? "" : "s"} (state ${obs?.state}). Stop its consumers first: offsets can only be reset while the group is inactive, as with kafka-consumer-groups --reset-offsets.` : null,
    group: { state: obs?.state ?? "Unknown", members, observedAt: obs?.observedAt.toISOString() ?? null },
    partitions,
    totals,
    rate,
    etaSeconds: rate && totals.records > 0 ? Math.round(totals.records / rate) : totals.records === 0 ? 0 : null,
    targets: partitions.map((p) => ({ partition: p.partition, offset: p.to })),
    notes,
  };
}
