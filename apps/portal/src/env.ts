import { z } from "zod";
import { parseSecretsKey } from "@kappa/catalog/secrets";

/*
 * The portal's configuration, parsed once from the environment. It is read
 * lazily (first use at start-up via instrumentation.ts) rather than at import,
 * so `next build` works without a database or secrets.
 */
const boolish = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes");

/** A required string variable: "is required" when unset, not zod's type jargon. */
const required = () => z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be text") });

const schema = z
  .object({
    DATABASE_URL: required().url("must be a PostgreSQL URL like postgresql://user:pass@host:5432/db").refine(
      (v) => v.startsWith("postgres://") || v.startsWith("postgresql://"),
      "must start with postgresql://",
    ),
    NEXTAUTH_SECRET: required().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)"),
    NEXTAUTH_URL: required().url("must be the portal's public URL, e.g. http://localhost:3000"),
    OIDC_ISSUER: z.string().url("must be the issuer URL of your OpenID Connect provider").optional(),
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    OIDC_NAME: z.string().min(1).default("Single sign-on"),
    /** The claim that carries the user's groups (id token or userinfo), mapped to domains and roles on the admin page. */
    OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
    /** Scopes asked for; add the provider's groups scope if it needs one (e.g. "openid email profile groups"). */
    OIDC_SCOPE: z
      .string()
      .default("openid email profile")
      .refine((v) => v.split(/\s+/).includes("openid"), "must include openid"),
    KAPPA_DEMO_MODE: boolish,
    /**
     * Reverse proxies in front of the portal that append the client's address
     * to X-Forwarded-For (0: none, the TCP peer is the client). Only those
     * entries are trusted; a client can write anything before them. Used
     * for sign-in throttling and the audit log's client address.
     */
    KAPPA_TRUSTED_PROXY_HOPS: z.coerce.number({ message: "must be a whole number" }).int("must be a whole number").min(0).max(10).default(0),
    /**
     * Set by apps/portal/peer-address.cjs (preloaded by `npm start`): the name
     * of the request header that carries the TCP peer address. Random per
     * process, so a client cannot forge it; unset, the peer is unknown and
     * sign-in throttling works per account only.
     */
    KAPPA_PEER_ADDRESS_HEADER: z.string().regex(/^x-kappa-peer-[0-9a-f]{16}$/, "is set by peer-address.cjs, not by hand").optional(),
    /** What the connection snippets show as the bootstrap address: where consumers reach Kafka, not where the worker does. */
    KAFKA_BOOTSTRAP_DISPLAY: z
      .string()
      .default("127.0.0.1:9092")
      .refine((v) => v.split(",").every((b) => /^[^\s:,]+:\d{1,5}$/.test(b.trim()) || /^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(b.trim())), "must be host:port[,host:port…]"),
    /**
     * The worker's key for issued passwords (same value as the worker's). The
     * portal needs it only to decrypt a password at its one-time pickup; unset,
     * "Reveal password" answers that credentials cannot be shown here.
     */
    /**
     * Where the portal's server reads records for the message browser (its own
     * least-privilege principal, `kappa-message-browser`, issued by the worker).
     * Default: KAFKA_BOOTSTRAP_DISPLAY.
     */
    KAFKA_READER_BROKERS: z
      .string()
      .optional()
      .refine((v) => v === undefined || v.split(",").every((b) => /^[^\s:,]+:\d{1,5}$/.test(b.trim()) || /^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(b.trim())), "must be host:port[,host:port…]"),
    KAFKA_READER_SASL_MECHANISM: z.enum(["scram-sha-512", "scram-sha-256", "none"], { message: "must be scram-sha-512, scram-sha-256 or none" }).default("scram-sha-512"),
    KAFKA_READER_SSL: boolish,
    KAFKA_READER_SSL_CA_FILE: z.string().min(1).optional(),
    /** Wall-clock budget for one message-browser page. */
    KAPPA_BROWSE_BUDGET_MS: z.coerce.number({ message: "must be a number" }).int().min(100).max(60_000).default(5_000),
    /** Message-browser pages per user per minute. */
    KAPPA_BROWSE_PAGES_PER_MINUTE: z.coerce.number({ message: "must be a number" }).int().min(1).max(10_000).default(60),
    /** Database connections the portal's pool holds (PostgreSQL's max_connections must cover portal + worker). */
    KAPPA_DB_POOL_SIZE: z.coerce.number({ message: "must be a number" }).int().min(1).max(500).default(20),
    /** How long a request waits for a free database connection before it is answered 503 with Retry-After. */
    KAPPA_DB_POOL_WAIT_MS: z.coerce.number({ message: "must be a number" }).int().min(50).max(60_000).default(3_000),
    /**
     * The SQL Gateway of the Flink session cluster derived products run on
     * (`http://host:8083`). The portal uses it for read-only planning only
     * (`POST /api/v1/derived/validate`: EXPLAIN in a throw-away session); the
     * worker deploys. Unset: validation answers 503 saying what to set.
     */
    FLINK_SQL_GATEWAY_URL: z
      .string()
      .optional()
      .refine((v) => v === undefined || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(v), "must be the http(s) URL of a Flink SQL Gateway, e.g. http://127.0.0.1:8083"),
    KAPPA_SECRETS_KEY: z
      .string()
      .optional()
      .refine((v) => v === undefined || isSecretsKey(v), "must be 32 bytes, base64 (44 characters) or hex (64 characters)"),
  })
  .superRefine((value, ctx) => {
    // Half-configured SSO is a deployment mistake, not "SSO off".
    const oidc = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const;
    const set = oidc.filter((k) => value[k] !== undefined);
    if (set.length > 0 && set.length < oidc.length) {
      for (const k of oidc.filter((k) => value[k] === undefined)) {
        ctx.addIssue({ code: "custom", path: [k], message: `must be set together with ${set.join(", ")}` });
      }
    }
  });

/** Decoded as the worker decodes it (one definition, in the catalog). */
function isSecretsKey(raw: string): boolean {
  try {
    parseSecretsKey(raw);
    return true;
  } catch {
    return false;
  }
}

export type Env = z.output<typeof schema>;

/** Parses a raw environment; throws one error naming every bad variable. */
export function parseEnv(raw: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v === "" ? undefined : v]));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid portal configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

export function oidcEnabled(e: Env = env()): e is Env & { OIDC_ISSUER: string; OIDC_CLIENT_ID: string; OIDC_CLIENT_SECRET: string } {
  return e.OIDC_ISSUER !== undefined && e.OIDC_CLIENT_ID !== undefined && e.OIDC_CLIENT_SECRET !== undefined;
}
