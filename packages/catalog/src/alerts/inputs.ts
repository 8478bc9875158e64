import { z } from "zod";

/** A lag in records beyond this is not an objective but a typo (Kafka offsets are int64; 10^15 is ~30 years at 1M records/s). */
export const MAX_LAG_RECORDS = 1_000_000_000_000_000;
/** 30 days: beyond that the replay window has usually passed anyway. */
export const MAX_LAG_SECONDS = 30 * 24 * 3600;

const objective = (max: number, unit: string) =>
  z
    .number({ message: `Enter a number of ${unit}, or leave it empty.` })
    .int(`Enter a whole number of ${unit}.`)
    .min(1, `The objective must be at least 1 ${unit.replace(/s$/, "")}.`)
    .max(max, `The objective can be at most ${max.toLocaleString("en-US")} ${unit}.`)
    .nullable();

/** A subscriber's own objectives; null (or both null) removes one (all). */
export const subscriptionObjectiveInput = z
  .object({
    maxLagRecords: objective(MAX_LAG_RECORDS, "records").default(null),
    maxLagSeconds: objective(MAX_LAG_SECONDS, "seconds").default(null),
  })
  .strict();

export type SubscriptionObjectiveInput = z.output<typeof subscriptionObjectiveInput>;

/**
 * The objectives' window for consumers that stopped: a consumer group with no
 * members for longer than this is shown as inactive and its lag does not
 * alert (a stopped consumer's lag only grows; alerting on it every cycle says
 * nothing new). It alerts again as soon as a member joins.
 */
export const INACTIVE_AFTER_MS = 3_600_000;

/**
 * Since when a group has been inactive, or null while it is not: no members
 * now, and no member seen nor commit advanced (GroupTopicUsage.lastActiveAt,
 * or its first sighting when it never had one) for longer than INACTIVE_AFTER_MS.
 */
export function inactiveSince(members: number, usage: { lastActiveAt: Date | null; firstSeenAt: Date } | undefined, now: number): Date | null {
  if (members > 0 || !usage) return null;
  const since = usage.lastActiveAt ?? usage.firstSeenAt;
  return now - since.getTime() > INACTIVE_AFTER_MS ? since : null;
}
