import path from "node:path";
import { z } from "zod";
import { DEFAULT_WORKER_MAX_HEAP_MB, MIN_WORKER_MAX_HEAP_MB } from "@kappa/worker/runtime";

/**
 * Start-up configuration, parsed once. A bad value stops start-up with a
 * message naming the variable. Defaults give the embedded, demo setup.
 */
const schema = z
  .object({
    DATABASE_URL: z
      .string()
      .url("must be a postgresql:// connection URL")
      .refine((v) => /^postgres(ql)?:\/\//.test(v), "must start with postgresql://")
      .optional(),
    /** The portal's and the worker's own roles (least privilege); DATABASE_URL is then the owner that runs migrations. */
    PORTAL_DATABASE_URL: z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), "must start with postgresql://")
      .optional(),
    WORKER_DATABASE_URL: z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), "must start with postgresql://")
      .optional(),
    KAPPA_DATA_DIR: z.string().min(1).default(".data"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** The portal's listen address. Unset: 127.0.0.1 in demo mode (publicly documented passwords), every interface otherwise. */
    HOSTNAME: z.string().regex(/^[A-Za-z0-9.:[\]-]+$/, "must be a host name or IP address, e.g. 0.0.0.0").optional(),
    KAPPA_PG_PORT: z.coerce.number().int().min(1).max(65535).default(55432),
    NEXTAUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    NEXTAUTH_URL: z.string().url("must be the portal's public URL, e.g. http://localhost:3000").optional(),
    KAPPA_DEMO_MODE: z.enum(["true", "false"], { message: "must be true or false" }).optional(),
    // Kafka. Unset KAFKA_BROKERS: the embedded broker runs on KAFKA_PORT.
    KAFKA_BROKERS: z
      .string()
      .regex(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/, "must be host:port[,host:port...]")
      .optional(),
    KAFKA_PORT: z.coerce.number().int().min(1).max(65535).default(9092),
    // Which Kafka `npm start` runs when KAFKA_BROKERS is unset: the embedded broker, or Apache Kafka
    // (3 KRaft nodes for dev, one for prod; packages/engines fetches it from Maven Central; needs Java 17 and Maven).
    KAPPA_KAFKA: z.enum(["embedded", "apache"], { message: "must be embedded or apache" }).default("embedded"),
    // The embedded `prod` environment: a second broker (default KAFKA_PORT + 1); KAPPA_PROD_ENVIRONMENT=false runs dev alone.
    KAFKA_PROD_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    // The embedded brokers' Prometheus metrics (metrics.port): dev here, prod on the next port; default KAFKA_PORT + 10.
    KAFKA_METRICS_PORT: z.coerce.number().int().min(1).max(65534).optional(),
    KAPPA_PROD_ENVIRONMENT: z.enum(["true", "false"], { message: "must be true or false" }).default("true"),
    KAFKA_SASL_MECHANISM: z.enum(["none", "plain", "scram-sha-256", "scram-sha-512"], { message: "must be none, plain, scram-sha-256 or scram-sha-512" }).default("scram-sha-512"),
    KAFKA_ADMIN_USER: z.string().min(1).default("kappa-admin"),
    KAFKA_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
    KAFKA_SSL: z.enum(["true", "false"], { message: "must be true or false" }).optional(),
    KAFKA_SSL_CA_FILE: z.string().optional(),
    KAFKA_BOOTSTRAP_DISPLAY: z.string().optional(),
    KAPPA_SECRETS_KEY: z.string().optional(),
    // Demo mode: a producer and a lagging consumer on the demo products (0 turns them off).
    KAPPA_DEMO_TRAFFIC: z.enum(["0", "1", "false", "true"], { message: "must be 0 or 1" }).default("1"),
    // debug: stream every service's log to the console (as `npm start -- --verbose`).
    KAPPA_LOG: z.enum(["info", "debug"], { message: "must be info or debug" }).default("info"),
    // The worker process's V8 heap cap in MB (--max-old-space-size; packages/worker/src/runtime.ts says how it is sized).
    WORKER_MAX_HEAP_MB: z.coerce.number().int().min(MIN_WORKER_MAX_HEAP_MB, `must be a whole number of MB, at least ${MIN_WORKER_MAX_HEAP_MB}`).default(DEFAULT_WORKER_MAX_HEAP_MB),
    // Derived products: `npm start` runs a local Apache Flink session cluster (JobManager, TaskManager, SQL Gateway;
    // packages/engines fetches it from PyPI and Maven Central on the first start; needs Java 17) when the worker runs,
    // unless FLINK_SQL_GATEWAY_URL points at a cluster of yours or KAPPA_FLINK=off.
    KAPPA_FLINK: z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
    FLINK_PORT: z.coerce.number().int().min(1).max(65535).default(8081),
    FLINK_GATEWAY_PORT: z.coerce.number().int().min(1).max(65535).default(8083),
    FLINK_SQL_GATEWAY_URL: z.string().url("must be the SQL Gateway's URL, e.g. http://flink-sql-gateway:8083").optional(),
    FLINK_REST_URL: z.string().url("must be the Flink JobManager's REST URL, e.g. http://flink-jobmanager:8081").optional(),
    // Tests of the portal alone turn the broker and the worker off.
    KAPPA_START_WORKER: z.enum(["true", "false"], { message: "must be true or false" }).default("true"),
  })
  .transform((env) => ({
    ...env,
    dataDir: path.resolve(env.KAPPA_DATA_DIR),
    // Demo mode (demo users and data) is the default only for the embedded database.
    demoMode: env.KAPPA_DEMO_MODE ? env.KAPPA_DEMO_MODE === "true" : env.DATABASE_URL === undefined,
    portalUrl: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`,
    /** The launcher starts the Kafka (the embedded broker or Apache Kafka); false when KAFKA_BROKERS points at a cluster. */
    embeddedKafka: env.KAFKA_BROKERS === undefined,
    /** Which Kafka the launcher starts, or null when KAFKA_BROKERS points at one. */
    kafkaEngine: env.KAFKA_BROKERS === undefined ? env.KAPPA_KAFKA : null,
    prodEnvironment: env.KAFKA_BROKERS === undefined && env.KAPPA_PROD_ENVIRONMENT === "true",
    KAFKA_PROD_PORT: env.KAFKA_PROD_PORT ?? env.KAFKA_PORT + 1,
    KAFKA_METRICS_PORT: env.KAFKA_METRICS_PORT ?? Math.min(env.KAFKA_PORT + 10, 65534),
    startWorker: env.KAPPA_START_WORKER === "true",
    // Demo mode has well-known passwords: loopback only unless HOSTNAME says otherwise.
    portalHostname: env.HOSTNAME ?? ((env.KAPPA_DEMO_MODE ? env.KAPPA_DEMO_MODE === "true" : env.DATABASE_URL === undefined) ? "127.0.0.1" : undefined),
    demoTraffic: env.KAPPA_DEMO_TRAFFIC === "1" || env.KAPPA_DEMO_TRAFFIC === "true",
    /** The launcher starts a local Flink session cluster: the worker runs, no external gateway is named, and KAPPA_FLINK is on. */
    localFlink: env.KAPPA_START_WORKER === "true" && env.KAPPA_FLINK === "on" && env.FLINK_SQL_GATEWAY_URL === undefined,
  }))
  .superRefine((env, ctx) => {
    if (env.startWorker && !env.demoMode && env.KAFKA_SASL_MECHANISM !== "none" && !env.KAFKA_ADMIN_PASSWORD) {
      ctx.addIssue({ code: "custom", path: ["KAFKA_ADMIN_PASSWORD"], message: "is required outside demo mode (the worker's Kafka admin login)" });
    }
    if (env.KAPPA_KAFKA === "apache" && env.KAFKA_BROKERS) {
      ctx.addIssue({ code: "custom", path: ["KAPPA_KAFKA"], message: "apache starts a local Apache Kafka cluster, but KAFKA_BROKERS points at one: set one or the other" });
    }
    if ((env.PORTAL_DATABASE_URL || env.WORKER_DATABASE_URL) && !env.DATABASE_URL) {
      ctx.addIssue({ code: "custom", path: [env.PORTAL_DATABASE_URL ? "PORTAL_DATABASE_URL" : "WORKER_DATABASE_URL"], message: "needs DATABASE_URL (the owner role) too; the embedded database makes its own roles" });
    }
    if (Boolean(env.FLINK_SQL_GATEWAY_URL) !== Boolean(env.FLINK_REST_URL)) {
      ctx.addIssue({ code: "custom", path: [env.FLINK_SQL_GATEWAY_URL ? "FLINK_REST_URL" : "FLINK_SQL_GATEWAY_URL"], message: "FLINK_SQL_GATEWAY_URL and FLINK_REST_URL go together: the worker deploys through the gateway and observes jobs through the JobManager's REST API" });
    }
    if (env.localFlink && env.FLINK_PORT === env.FLINK_GATEWAY_PORT) {
      ctx.addIssue({ code: "custom", path: ["FLINK_GATEWAY_PORT"], message: "must differ from FLINK_PORT" });
    }
    if (!env.demoMode && !env.KAPPA_SECRETS_KEY) {
      ctx.addIssue({ code: "custom", path: ["KAPPA_SECRETS_KEY"], message: "is required outside demo mode (32 random bytes, base64 or hex)" });
    }
  });

/** The development admin password, used only in demo mode when none is set. */
export const DEMO_KAFKA_ADMIN_PASSWORD = "kappa-dev-secret";

export type StartConfig = z.output<typeof schema>;

export function parseStartConfig(source: NodeJS.ProcessEnv): StartConfig {
  // Empty strings (e.g. `DATABASE_URL=` in a .env) mean "not set".
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(config)"}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}
