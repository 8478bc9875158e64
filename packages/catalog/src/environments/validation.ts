import { z } from "zod";

/*
 * Inputs of the environment actions. Pure zod: the portal's admin form
 * imports the same rules.
 */

export const SECURITY_PROTOCOLS = ["PLAINTEXT", "SASL_PLAINTEXT", "SSL", "SASL_SSL"] as const;
export const SASL_MECHANISMS = ["none", "plain", "scram-sha-256", "scram-sha-512"] as const;

/** Environment names become part of URLs, audit entries and labels: short lower-case words. */
export const environmentName = z
  .string({ message: "Name the environment." })
  .trim()
  .regex(/^[a-z][a-z0-9-]{0,29}$/, "An environment name is 1–30 lower-case letters, digits or '-', starting with a letter (e.g. dev, prod).");

/** One bootstrap entry, host:port or [IPv6]:port with a port of 1–65535. */
const BOOTSTRAP_ENTRY = "(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\\[[0-9a-fA-F:]+\\]):(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])";

const bootstrap = z
  .string({ message: "Give the bootstrap servers." })
  // The whole list as one pattern first (1–50 entries separated by commas, spaces around them allowed), so that the
  // API document states the rule (issue 30, finding 18); the checks below name what is wrong.
  .max(2000, "At most 2000 characters of bootstrap servers.")
  .regex(new RegExp(`^[ ,]*${BOOTSTRAP_ENTRY}(?: *,[ ,]*${BOOTSTRAP_ENTRY}){0,49}[ ,]*$`), "Every bootstrap entry must be host:port with a port of 1 to 65535 (e.g. kafka-1.prod:9093), 1 to 50 of them separated by commas.")
  .trim()
  .min(1, "Give the bootstrap servers.")
  .max(2000, "At most 2000 characters of bootstrap servers.")
  .transform((raw) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0))
  .refine((list) => list.length > 0 && list.length <= 50, "List 1 to 50 host:port entries separated by commas.")
  .refine(
    (list) => list.every((b) => /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}:\d{1,5}$/.test(b) || /^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(b)),
    "Every bootstrap entry must be host:port (e.g. kafka-1.prod:9093).",
  )
  // Only entries that have a port are checked here (one without is the message above).
  .refine((list) => list.every((b) => !/:\d{1,5}$/.test(b) || (Number(b.slice(b.lastIndexOf(":") + 1)) <= 65535 && Number(b.slice(b.lastIndexOf(":") + 1)) > 0)), "Ports are 1 to 65535.")
  .transform((list) => list.join(","));

const bounds = {
  /** Stricter bounds of the environment (absent: only the global policy). */
  maxPartitions: z.number({ message: "Maximum partitions must be a number." }).int("Maximum partitions must be a whole number.").min(1).max(10_000).nullable().optional(),
  minRetentionMs: z.number({ message: "Minimum retention must be a number of milliseconds." }).int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
};

const credentials = {
  securityProtocol: z.enum(SECURITY_PROTOCOLS, { message: "The security protocol is PLAINTEXT, SASL_PLAINTEXT, SSL or SASL_SSL." }),
  saslMechanism: z.enum(SASL_MECHANISMS, { message: "The SASL mechanism is none, plain, scram-sha-256 or scram-sha-512." }).default("none"),
  adminUser: z.string().max(200, "The admin user is at most 200 characters.").trim().regex(/^[^\s,;]*$/, "The admin user has no spaces, commas or semicolons.").optional(),
  /** Write-only: stored sealed, never returned. */
  adminPassword: z.string().max(1024, "The admin password is at most 1024 characters.").optional(),
};

/** SASL needs a mechanism and credentials; PLAINTEXT and SSL take none. */
function saslConsistent(value: { securityProtocol: string; saslMechanism: string; adminUser?: string | undefined; adminPassword?: string | undefined }, ctx: z.RefinementCtx, passwordRequired: boolean) {
  const sasl = value.securityProtocol.startsWith("SASL_");
  if (sasl && value.saslMechanism === "none") ctx.addIssue({ code: "custom", path: ["saslMechanism"], message: `${value.securityProtocol} needs a SASL mechanism (plain, scram-sha-256 or scram-sha-512).` });
  if (!sasl && value.saslMechanism !== "none") ctx.addIssue({ code: "custom", path: ["saslMechanism"], message: `${value.securityProtocol} does not use SASL: choose none, or a SASL_ protocol.` });
  if (sasl && !value.adminUser) ctx.addIssue({ code: "custom", path: ["adminUser"], message: "Give the admin user the worker signs in with." });
  if (sasl && passwordRequired && !value.adminPassword) ctx.addIssue({ code: "custom", path: ["adminPassword"], message: "Give the admin user's password." });
}

export const registerClusterInput = z
  .object({ environment: environmentName, bootstrap, ...credentials, ...bounds })
  .strict()
  .superRefine((value, ctx) => saslConsistent(value, ctx, true));
export type RegisterClusterInput = z.input<typeof registerClusterInput>;

/** Everything but the name may change; a password given replaces the stored one, none keeps it (unless the target changes: actions/update-cluster.ts). */
export const updateClusterInput = z
  .object({ bootstrap, ...credentials, ...bounds })
  .strict()
  .superRefine((value, ctx) => saslConsistent(value, ctx, false));

export const promoteProductInput = z.object({ environment: environmentName }).strict();
