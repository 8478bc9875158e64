import { z } from "zod";

/*
 * POST /api/v1/subscriptions/:id/replay body:
 *   { "group"?: name, "to": "earliest" | "latest" | { "timestamp": ms } | { "offsets": [{ "partition", "offset" }] } | { "shiftBy": n }, "dryRun"?: true }
 */

const GROUP_ID = /^[a-zA-Z0-9._-]{1,249}$/;

export const replayTarget = z.union(
  [
    z.literal("earliest"),
    z.literal("latest"),
    z.object({ timestamp: z.number({ message: "timestamp is epoch milliseconds" }).int().min(0) }).strict(),
    z
      .object({
        offsets: z
          .array(z.object({ partition: z.number().int().min(0), offset: z.number().int().min(0) }).strict())
          .min(1, "Give at least one partition's offset.")
          .max(10_000)
          .refine((list) => new Set(list.map((o) => o.partition)).size === list.length, "Each partition at most once."),
      })
      .strict(),
    z.object({ shiftBy: z.number({ message: "shiftBy is a whole number of records (negative: back)" }).int().refine((n) => n !== 0, "A shift of 0 changes nothing.") }).strict(),
  ],
  { message: 'to is "earliest", "latest", { "timestamp": ms }, { "offsets": [{ "partition", "offset" }] } or { "shiftBy": n }' },
);
export type ReplayTarget = z.infer<typeof replayTarget>;

export const replayInput = z
  .object({
    group: z.string().trim().regex(GROUP_ID, "A consumer group id is 1–249 letters, digits, '.', '_' or '-'.").optional(),
    to: replayTarget,
    dryRun: z.boolean().optional(),
  })
  .strict();
export type ReplayInput = z.input<typeof replayInput>;
