/*
 * `npm start -w packages/worker`: the worker as its own process. Reads the
 * environment once (env.ts), runs until SIGINT/SIGTERM, then shuts down
 * gracefully: running tasks finish or give their leases back.
 */
import { readFileSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { createPrismaClient, parseSecretsKey } from "@kappa/catalog";
import { ConfigurationError, parseWorkerEnv } from "./env.ts";
import { oldSpaceCapBytes, watchHeap } from "./health/heap-watch.ts";
import { KafkaJsCluster } from "./kafka/kafkajs-cluster.ts";
import { openProducer } from "./kafka/producer.ts";
import { errorMessage, jsonLogger } from "./log.ts";
import { WorkerMetrics } from "./metrics.ts";
import { Worker } from "./worker.ts";

async function main(): Promise<void> {
  const env = parseWorkerEnv(process.env);
  const log = jsonLogger({ level: env.LOG_LEVEL, base: { service: "kappa-worker", workerId: env.WORKER_ID } });
  const db = createPrismaClient(env.DATABASE_URL);
  const mechanism = env.KAFKA_SASL_MECHANISM;
  // GET /metrics on the health port: the worker's own figures, its Kafka requests and the process's (CPU, heap, event loop).
  const metrics = new WorkerMetrics({ processMetrics: true });
  const cluster = new KafkaJsCluster(
    {
      brokers: env.KAFKA_BROKERS,
      sasl:
        mechanism === "none"
          ? null
          : { mechanism: mechanism === "plain" ? "PLAIN" : mechanism === "scram-sha-256" ? "SCRAM-SHA-256" : "SCRAM-SHA-512", username: env.KAFKA_ADMIN_USER, password: env.KAFKA_ADMIN_PASSWORD ?? "" },
      ssl: env.KAFKA_SSL,
      caFile: env.KAFKA_SSL_CA_FILE,
      clientId: `kappa-worker-${env.WORKER_ID}`,
      metrics,
    },
    log,
  );
  // The platform's producer (acks=all, idempotent) as the admin principal: redriven dead letters go back to product topics with it.
  const producer = openProducer({
    clientId: `kappa-worker-${env.WORKER_ID}`,
    brokers: env.KAFKA_BROKERS,
    ...(mechanism === "none" ? {} : { sasl: { mechanism: mechanism === "plain" ? "PLAIN" : mechanism === "scram-sha-256" ? "SCRAM-SHA-256" : "SCRAM-SHA-512", username: env.KAFKA_ADMIN_USER, password: env.KAFKA_ADMIN_PASSWORD ?? "" } }),
    ...(env.KAFKA_SSL ? { tls: env.KAFKA_SSL_CA_FILE ? { ca: readFileSync(env.KAFKA_SSL_CA_FILE, "utf8") } : true } : {}),
  });
  const worker = new Worker(
    db,
    cluster,
    {
      workerId: env.WORKER_ID,
      concurrency: env.WORKER_CONCURRENCY,
      batchSize: env.WORKER_BATCH_SIZE,
      pollMs: env.WORKER_POLL_MS,
      leaseMs: env.WORKER_LEASE_MS,
      maxAttempts: env.WORKER_MAX_ATTEMPTS,
      backoffBaseMs: env.WORKER_BACKOFF_BASE_MS,
      backoffMaxMs: env.WORKER_BACKOFF_MAX_MS,
      reconcileIntervalMs: env.WORKER_RECONCILE_INTERVAL_MS,
      observeIntervalMs: env.WORKER_OBSERVE_INTERVAL_MS,
      clusterScanIntervalMs: env.WORKER_CLUSTER_SCAN_MS,
      recertificationIntervalMs: env.WORKER_RECERTIFICATION_MS,
      historyHours: env.WORKER_HISTORY_HOURS,
      retiredTopics: env.WORKER_RETIRED_TOPICS,
      secretsKey: parseSecretsKey(env.KAPPA_SECRETS_KEY),
      healthPort: env.WORKER_HEALTH_PORT,
      metrics,
      readyFile: env.WORKER_READY_FILE,
      adminUser: mechanism === "none" ? null : env.KAFKA_ADMIN_USER,
      superUsers: env.KAFKA_SUPER_USERS,
      outageBackoffBaseMs: env.WORKER_OUTAGE_BACKOFF_BASE_MS,
      outageBackoffMaxMs: env.WORKER_OUTAGE_BACKOFF_MAX_MS,
      sunsetCheckMs: env.WORKER_SUNSET_CHECK_MS,
      messageBrowserReconcileMs: env.WORKER_MESSAGE_BROWSER_RECONCILE_MS,
      slo: { fireAfterMs: env.WORKER_ALERT_FIRE_AFTER_MS, resolveAfterMs: env.WORKER_ALERT_RESOLVE_AFTER_MS, clearRatio: env.WORKER_ALERT_CLEAR_RATIO, freshnessEveryMs: env.WORKER_FRESHNESS_CHECK_MS },
      environments: {
        intervalMs: env.WORKER_ENVIRONMENTS_MS,
        primary: {
          environment: env.KAFKA_ENVIRONMENT,
          bootstrap: env.KAFKA_BROKERS.join(","),
          securityProtocol: `${mechanism === "none" ? "" : "SASL_"}${env.KAFKA_SSL ? "SSL" : "PLAINTEXT"}`,
          saslMechanism: mechanism,
          adminUser: mechanism === "none" ? null : env.KAFKA_ADMIN_USER,
        },
      },
      flink: env.FLINK_SQL_GATEWAY_URL && env.FLINK_REST_URL ? { gatewayUrl: env.FLINK_SQL_GATEWAY_URL, restUrl: env.FLINK_REST_URL, bootstrap: env.KAFKA_BROKERS.join(","), registryUrl: env.FLINK_SCHEMA_REGISTRY_URL ?? `${env.KAPPA_PORTAL_URL.replace(/\/+$/, "")}/api/schema-registry`, ...(env.FLINK_SAVEPOINT_DIR ? { savepointDir: env.FLINK_SAVEPOINT_DIR } : {}) } : undefined,
      producer,
      stateView: { pollMs: env.WORKER_STATE_POLL_MS, partitionFetchBytes: env.WORKER_STATE_FETCH_BYTES },
      notifications: {
        pollMs: env.WORKER_NOTIFY_POLL_MS,
        webhooks: {
          secretsKey: parseSecretsKey(env.KAPPA_SECRETS_KEY),
          portalUrl: env.KAPPA_PORTAL_URL,
          timeoutMs: env.WORKER_WEBHOOK_TIMEOUT_MS,
          maxAttempts: env.WORKER_WEBHOOK_MAX_ATTEMPTS,
          backoffBaseMs: env.WORKER_WEBHOOK_BACKOFF_BASE_MS,
          backoffMaxMs: env.WORKER_WEBHOOK_BACKOFF_MAX_MS,
          allowPrivateTargets: env.WORKER_WEBHOOK_ALLOW_PRIVATE,
        },
        email: env.SMTP_URL ? { smtpUrl: env.SMTP_URL, from: env.SMTP_FROM, portalUrl: env.KAPPA_PORTAL_URL, maxAgeHours: env.WORKER_EMAIL_MAX_AGE_HOURS } : undefined,
      },
    },
    log,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    worker
      .stop()
      .then(() => producer.close())
      .then(() => cluster.close())
      .then(() => db.$disconnect())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error("shutdown failed", { error: errorMessage(error) });
          process.exit(1);
        },
      );
  };
  // The heap cap decides how large a catalog this process can hold (src/runtime.ts); say it once.
  const cap = oldSpaceCapBytes(process.execArgv, process.env.NODE_OPTIONS);
  log.info("memory settings", { heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1048576), oldSpaceCapMb: cap === null ? null : Math.round(cap / 1048576), mallocArenaMax: env.MALLOC_ARENA_MAX ?? null });
  // And a warning, after a full collection, when the live set comes close to it (src/health/heap-watch.ts).
  watchHeap(log);
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  await worker.start();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "worker failed to start", error: errorMessage(error) })}\n`);
  process.exit(1);
});
