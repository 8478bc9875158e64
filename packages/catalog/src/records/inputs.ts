import { z } from "zod";

/* Inputs of the record reads (latest-state view, message browser). */

export const MAX_KEY_BYTES = 4096;

export const stateKeyInput = z
  .object({
    key: z.string().min(1, "Give a key.").max(MAX_KEY_BYTES * 2, "The key is too long."),
    encoding: z.enum(["utf8", "hex"], { message: "encoding is utf8 or hex" }).default("utf8"),
  })
  .refine((v) => v.encoding !== "hex" || /^([0-9a-fA-F]{2})+$/.test(v.key), { message: "A hex key is an even number of hex digits.", path: ["key"] });

export const browseStateInput = z
  .object({
    prefix: z.string().max(MAX_KEY_BYTES * 2).optional(),
    encoding: z.enum(["utf8", "hex"]).default("utf8"),
    /** Hex of the last key of the previous page. */
    after: z.string().regex(/^([0-9a-fA-F]{2})*$/, "after is the hex of a key").max(MAX_KEY_BYTES * 2).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .refine((v) => v.encoding !== "hex" || v.prefix === undefined || /^([0-9a-fA-F]{2})*$/.test(v.prefix), { message: "A hex prefix is an even number of hex digits.", path: ["prefix"] });
