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
