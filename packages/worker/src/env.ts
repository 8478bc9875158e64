import { hostname } from "node:os";
import { z } from "zod";
import { parseSecretsKey } from "@kappa/catalog/secrets";
import { DEFAULT_PARTITION_FETCH_BYTES } from "./state/materializer.ts";

/*
 * The worker's configuration, parsed once at start-up. Nothing else in the
 * package reads process.env: every module takes what it needs from WorkerEnv.
 */

const bool = z
  .enum(["true", "false", "1", "0"], { message: "must be true or false" })
  .transform((v) => v === "true" || v === "1");

const positiveInt = (fallback: number) => z.coerce.number({ message: "must be a number" }).int("must be a whole number").positive("must be positive").default(fallback);

const brokers = z
  .string()
  .transform((raw) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0))
  .refine((list) => list.length > 0, "must list at least one host:port")
  .refine((list) => list.every((b) => /^[^\s:]+:\d{1,5}$/.test(b) || /^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(b)), "every entry must be host:port");

export const workerEnvSchema = z
  .object({
    DATABASE_URL: z.string({ message: "is required" }).regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL"),
    KAFKA_BROKERS: brokers,
    KAFKA_SASL_MECHANISM: z.enum(["none", "plain", "scram-sha-256", "scram-sha-512"], { message: "must be none, plain, scram-sha-256 or scram-sha-512" }).default("scram-sha-512"),
    KAFKA_ADMIN_USER: z.string().min(1, "must not be empty").default("kappa-admin"),
    KAFKA_ADMIN_PASSWORD: z.string().optional(),
    /**
     * Kafka's super.users (`User:a;User:b`), for clusters that do not show it
     * through DescribeConfigs; the worker reserves them in the catalog and never
     * alters them.
     */
    KAFKA_SUPER_USERS: z
      .string()
      .transform((raw) => raw.split(";").map((s) => s.trim()).filter((s) => s.length > 0))
      .refine((list) => list.every((p) => /^User:[^\s;]+$/.test(p)), "must be principals like User:admin separated by \";\"")
      .default([]),
    KAFKA_SSL: bool.default(false),
    /** The environment name of this worker's own cluster (KAFKA_BROKERS), e.g. dev; clusters admins register are the others. */
    KAFKA_ENVIRONMENT: z.string().regex(/^[a-z][a-z0-9-]{0,29}$/, "must be 1-30 lower-case letters, digits or '-', starting with a letter").default("default"),
    /** How often registered clusters (other environments) are reconciled. */
    WORKER_ENVIRONMENTS_MS: positiveInt(10_000),
    KAFKA_SSL_CA_FILE: z.string().min(1).optional(),
    WORKER_ID: z.string().min(1).max(200).default(`${hostname()}-${process.pid}`),
    WORKER_CONCURRENCY: positiveInt(4),
    /** Tasks leased and reconciled together; 1 turns batching off. */
    WORKER_BATCH_SIZE: positiveInt(50),
    WORKER_POLL_MS: positiveInt(500),
    WORKER_LEASE_MS: positiveInt(30_000),
    WORKER_MAX_ATTEMPTS: positiveInt(10),
    WORKER_BACKOFF_BASE_MS: positiveInt(1_000),
    WORKER_BACKOFF_MAX_MS: positiveInt(60_000),
    /** While PostgreSQL or Kafka is unreachable: the first wait and the cap of the (jittered, doubling) backoff. */
    WORKER_OUTAGE_BACKOFF_BASE_MS: positiveInt(500),
    WORKER_OUTAGE_BACKOFF_MAX_MS: positiveInt(30_000),
    WORKER_RECONCILE_INTERVAL_MS: positiveInt(60_000),
    WORKER_OBSERVE_INTERVAL_MS: positiveInt(5_000),
    /** Cluster scan: every topic (managed or not) and every group's commits — the topic browser and observed lineage. */
    WORKER_CLUSTER_SCAN_MS: positiveInt(30_000),
    /** Access recertification sweep: expiries, overdue notices, auto-revoke when the policy says so. */
    WORKER_RECERTIFICATION_MS: positiveInt(3_600_000),
    /** How long the minute-bucketed observation history is kept. */
    WORKER_HISTORY_HOURS: positiveInt(48),
    /** What happens to a RETIRED product's topic: deleted, or kept without any grants. */
    WORKER_RETIRED_TOPICS: z.enum(["delete", "keep"], { message: "must be delete or keep" }).default("keep"),
    /** 0 turns the HTTP health endpoint off. */
    WORKER_HEALTH_PORT: z.coerce.number({ message: "must be a number" }).int().min(0).max(65535).default(0),
    /** A file written when the worker is ready and removed on shutdown (for scripts that cannot poll HTTP). */
    WORKER_READY_FILE: z.string().min(1).optional(),
    /** 32 bytes, base64 or hex: encrypts issued passwords until their owner picks them up. */
    KAPPA_SECRETS_KEY: z.string({ message: "is required (32 random bytes, base64 or hex)" }).superRefine((raw, ctx) => {
      try {
        parseSecretsKey(raw);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
      }
    }),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    /** Read by glibc at process start, not by the worker; only logged at start (src/runtime.ts sets it). */
    MALLOC_ARENA_MAX: z.string().optional(),
    /** The portal's public URL: links in e-mails and webhook payloads. */
    KAPPA_PORTAL_URL: z.string().url("must be the portal's public URL, e.g. https://kappa.example.com").default("http://localhost:3000"),
    /** smtp://user:pass@host:587 or smtps://…; unset: no e-mail (the in-app centre and webhooks still work). */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
      .refine((v) => URL.canParse(v), "must be an smtp:// or smtps:// URL")
      .optional(),
    SMTP_FROM: z.string().min(3).default("Kappa Mesh <no-reply@kappa.invalid>"),
    /** Notifications older than this are not e-mailed any more (e.g. after SMTP was configured late). */
    WORKER_EMAIL_MAX_AGE_HOURS: positiveInt(24),
    /** How often the e-mail and webhook outboxes are polled. */
    WORKER_NOTIFY_POLL_MS: positiveInt(1_000),
    WORKER_WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
    WORKER_WEBHOOK_MAX_ATTEMPTS: positiveInt(8),
    WORKER_WEBHOOK_BACKOFF_BASE_MS: positiveInt(10_000),
    WORKER_WEBHOOK_BACKOFF_MAX_MS: positiveInt(3_600_000),
    /** Webhooks to loopback, private and link-local addresses are refused unless true (SSRF guard; demo mode allows them). */
    WORKER_WEBHOOK_ALLOW_PRIVATE: bool.default(false),
    /** How often latest-state views look for new records once caught up. */
    WORKER_STATE_POLL_MS: positiveInt(1_000),
    /** Bytes read per partition per round by the latest-state views (why 1 MiB: src/state/materializer.ts). */
    WORKER_STATE_FETCH_BYTES: positiveInt(DEFAULT_PARTITION_FETCH_BYTES),
    /** How often the message browser's principal is reconciled (new product topics become browsable within this). */
    WORKER_MESSAGE_BROWSER_RECONCILE_MS: positiveInt(10_000),
    /** SLO alerts: how long a value stays above its objective before the alert fires (0: at once). */
    WORKER_ALERT_FIRE_AFTER_MS: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(0, "must not be negative").default(60_000),
    /** … and at or below objective × WORKER_ALERT_CLEAR_RATIO before it resolves (0: at once). */
    WORKER_ALERT_RESOLVE_AFTER_MS: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(0, "must not be negative").default(120_000),
    /** Recovery must go this far below the objective (hysteresis in value): 0 < ratio ≤ 1. */
    WORKER_ALERT_CLEAR_RATIO: z.coerce.number({ message: "must be a number" }).gt(0, "must be above 0").max(1, "must be at most 1").default(0.8),
    /** How often product freshness (the newest record's age) is measured. */
    WORKER_FRESHNESS_CHECK_MS: positiveInt(30_000),
    /** How often deprecated products past their sunset are retired. */
    WORKER_SUNSET_CHECK_MS: positiveInt(60_000),
    /** Derived products (issue 34): the Flink SQL Gateway jobs are submitted to, and the JobManager's REST API they are observed through; unset: no derived product is deployed. */
    FLINK_SQL_GATEWAY_URL: z.string().url("must be the SQL Gateway's URL, e.g. http://flink-sql-gateway:8083").optional(),
    FLINK_REST_URL: z.string().url("must be the Flink JobManager's REST URL, e.g. http://flink-jobmanager:8081").optional(),
    /** Where a paused derived product's job writes its savepoint (a folder or object store Flink reaches, e.g. s3://flink/savepoints); unset: the cluster's execution.checkpointing.savepoint-dir. */
    /** The Schema Registry as Flink's jobs reach it, for derived products' Avro inputs (the portal's /api/schema-registry); unset: KAPPA_PORTAL_URL's. */
    FLINK_SCHEMA_REGISTRY_URL: z.string().url("must be the portal's Schema Registry URL as Flink reaches it, e.g. http://kappa-portal:3000/api/schema-registry").optional(),
    FLINK_SAVEPOINT_DIR: z.string().regex(/^[a-z][a-z0-9+.-]*:\/\/\S+$/, "must be a URI Flink writes savepoints to, e.g. file:///var/flink/savepoints or s3://flink/savepoints").optional(),
  })
  .superRefine((env, ctx) => {
    if (env.FLINK_SQL_GATEWAY_URL && !env.FLINK_REST_URL) ctx.addIssue({ code: "custom", path: ["FLINK_REST_URL"], message: "is required when FLINK_SQL_GATEWAY_URL is set (jobs are observed through it)" });
    if (env.FLINK_REST_URL && !env.FLINK_SQL_GATEWAY_URL) ctx.addIssue({ code: "custom", path: ["FLINK_SQL_GATEWAY_URL"], message: "is required when FLINK_REST_URL is set" });
    if (env.KAFKA_SASL_MECHANISM !== "none" && !env.KAFKA_ADMIN_PASSWORD) {
      ctx.addIssue({ code: "custom", path: ["KAFKA_ADMIN_PASSWORD"], message: `is required when KAFKA_SASL_MECHANISM is ${env.KAFKA_SASL_MECHANISM}` });
    }
  });

export type WorkerEnv = z.output<typeof workerEnvSchema>;

export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

/** Parses the environment; the error names every variable that is wrong. */
export function parseWorkerEnv(source: Record<string, string | undefined>): WorkerEnv {
  // Empty strings (from `FOO=` in an env file) mean "unset", as in the portal.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = workerEnvSchema.safeParse(cleaned);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(environment)"}: ${issue.message}`);
  throw new ConfigurationError(`Invalid worker configuration:\n${lines.join("\n")}`);
}
