import { z } from "zod";

/* Inputs of the record reads (latest-state view, message browser). */

export const MAX_KEY_BYTES = 4096;

export const stateKeyInput = z
  .object({
    key: z.string().min(1, "Give a key.").max(MAX_KEY_BYTES * 2, "The key is too long."),
    encoding: z.enum(["utf8", "hex"], { message: "encoding is utf8 or hex" }).default("utf8"),
  })
  .refine((v) => v.encoding !== "hex" || /^([0-9a-fA-F]{2})+$/.test(v.key), { message: "A hex key is an even number of hex digits.", path: ["key"] });

const browseStateShape = {
  prefix: z.string().max(MAX_KEY_BYTES * 2).optional(),
  encoding: z.enum(["utf8", "hex"], { message: "encoding is utf8 or hex" }).default("utf8"),
  /** The previous page's nextAfter: the hex of its last key, or `#<keys skipped>` where keys are masked. */
  after: z.string().max(MAX_KEY_BYTES * 2).regex(/^(([0-9a-fA-F]{2})*|#\d{1,9})$/, "after is the previous page's nextAfter").optional(),
  limit: z.coerce.number({ message: "limit is a number" }).int("limit is a whole number").min(1, "limit is at least 1").max(200, "At most 200 keys per page.").default(50),
};
const hexPrefix = { check: (v: { encoding: string; prefix?: string }) => v.encoding !== "hex" || v.prefix === undefined || /^([0-9a-fA-F]{2})*$/.test(v.prefix), message: "A hex prefix is an even number of hex digits.", path: ["prefix"] };

export const browseStateInput = z.object(browseStateShape).refine(hexPrefix.check, { message: hexPrefix.message, path: hexPrefix.path });

/**
 * The query of GET /products/{id}/state, checked whole whichever answer it
 * asks for (status, or with `keys=1` a page of keys): the API document's
 * parameters are these (issue 30, finding 18).
 */
export const stateQueryInput = z
  .object({ keys: z.enum(["1"], { message: "keys is 1 (a page of keys) or absent (the view's status)" }).optional(), ...browseStateShape })
  .refine(hexPrefix.check, { message: hexPrefix.message, path: hexPrefix.path });

/** Records per page and bytes (keys + values) per page of the message browser. */
export const BROWSE_LIMITS = { maxRecords: 500, maxBytes: 5 * 1024 * 1024 } as const;

const offsetText = z.string().regex(/^\d{1,19}$/, "An offset is a whole number ≥ 0.");

export const browseMessagesInput = z
  .object({
    /** One partition, a comma-separated list, or absent for all. */
    partition: z
      .string()
      .regex(/^\d{1,4}(,\d{1,4})*$/, "partition is a number or a comma-separated list of numbers")
      .transform((v) => [...new Set(v.split(",").map(Number))].sort((a, b) => a - b))
      .optional(),
    offset: offsetText.transform(BigInt).optional(),
    /** Epoch milliseconds or an ISO date-time. */
    timestamp: z
      .string()
      .transform((v, ctx) => {
        const ms = /^\d{1,16}$/.test(v) ? Number(v) : Date.parse(v);
        if (!Number.isFinite(ms)) {
          ctx.addIssue({ code: "custom", message: "timestamp is epoch milliseconds or an ISO date-time" });
          return z.NEVER;
        }
        return BigInt(ms);
      })
      .optional(),
    /** forward: from the start position on; backward: the records before it (the default from the end). */
    direction: z.enum(["forward", "backward"], { message: "direction is forward or backward" }).optional(),
    limit: z.coerce.number({ message: "limit is a number" }).int().min(1, "limit is at least 1").max(BROWSE_LIMITS.maxRecords, `At most ${BROWSE_LIMITS.maxRecords} records per page.`).default(50),
    key: z.string().min(1).max(MAX_KEY_BYTES * 2, "The key is too long.").optional(),
    keyEncoding: z.enum(["utf8", "hex"]).default("utf8"),
    /** A page cursor from a previous answer (`next` / `previous`). */
    cursor: z.string().max(20_000).optional(),
  })
  .superRefine((v, ctx) => {
    const starts = [v.offset !== undefined, v.timestamp !== undefined, v.cursor !== undefined].filter(Boolean).length;
    if (starts > 1) ctx.addIssue({ code: "custom", path: ["offset"], message: "Give one of offset, timestamp or cursor." });
    if (v.keyEncoding === "hex" && v.key !== undefined && !/^([0-9a-fA-F]{2})+$/.test(v.key)) ctx.addIssue({ code: "custom", path: ["key"], message: "A hex key is an even number of hex digits." });
  });
export type BrowseMessagesInput = z.input<typeof browseMessagesInput>;
