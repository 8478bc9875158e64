import { z } from "zod";
import { cleanString } from "../validation.ts";
import { NOTIFICATION_KIND_NAMES } from "./kinds.ts";

/* Inputs of the notification centre and of domain webhooks (zod, shared by the API and the forms). */

export const listNotificationsInput = z.object({
  unread: z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .optional()
    .transform((v) => v === true || v === "true" || v === "1"),
  limit: z.coerce.number().int().min(1).max(100).default(30),
  /** Id of the last notification of the previous page. */
  before: z.coerce.number().int().positive().optional(),
});

export const markNotificationsReadInput = z
  .object({
    ids: z.array(z.coerce.number().int().positive()).max(500).optional(),
    all: z.literal(true).optional(),
  })
  .refine((v) => v.all === true || (v.ids !== undefined && v.ids.length > 0), { message: "Give the ids to mark read, or all: true.", path: ["ids"] });

const webhookUrl = z
  .string()
  .trim()
  .max(2000, "The URL must be at most 2000 characters.")
  .superRefine((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "Enter a full URL such as https://hooks.example.com/kappa." });
      return;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") ctx.addIssue({ code: "custom", message: "Webhooks are sent over https (or http)." });
    // Credentials in the URL would be stored and logged in clear; sign-in is the HMAC signature's job.
    if (url.username || url.password) ctx.addIssue({ code: "custom", message: "Leave user names and passwords out of the URL; verify the X-Kappa-Signature header instead." });
    if (url.hash) ctx.addIssue({ code: "custom", message: "A webhook URL has no #fragment." });
  });

const kinds = z
  .array(z.enum(NOTIFICATION_KIND_NAMES as [string, ...string[]], { message: "Unknown event kind." }))
  .max(NOTIFICATION_KIND_NAMES.length)
  .default([])
  .transform((list) => [...new Set(list)].sort());

export const createWebhookInput = z.object({
  domainId: z.string().min(1, "Choose a domain."),
  url: webhookUrl,
  description: cleanString("Description", { multiline: true }).max(500, "Description must be at most 500 characters.").trim().default(""),
  kinds,
});
export type CreateWebhookInput = z.input<typeof createWebhookInput>;

export const updateWebhookInput = z.object({
  url: webhookUrl.optional(),
  description: cleanString("Description", { multiline: true }).max(500).trim().optional(),
  kinds: kinds.optional(),
  active: z.boolean().optional(),
});
