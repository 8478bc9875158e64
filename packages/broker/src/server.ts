// startBroker: opens storage, binds the listeners, and wires connections to the
// handler registry. Returns the bound and advertised addresses and a stop().
import { randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import type { Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import { CORE_APIS } from "./apis/index.ts";
import { BrokerCore, consoleLogger, type Logger } from "./broker.ts";
import { resolveConfig, type BrokerConfig } from "./config.ts";
import { enabledSaslMechanisms } from "./config.ts";
import type { Control } from "./control.ts";
import { GroupMetadataLog } from "./groups/group-metadata-log.ts";
import { Connection, FRAME_POOL_BYTES } from "./net/connection.ts";
import { DIRECT_READ_MIN_BYTES, FramePool } from "./net/frame-reader.ts";
import { parseListeners, parseProtocolMap, usesSasl, usesTls, type ListenerEndpoint, type ListenerSpec } from "./net/listeners.ts";
import { adoptWithReadBuffer, READ_BUFFER_BYTES } from "./net/read-buffer.ts";
import type { RequestMetrics } from "./net/request-metrics.ts";
import { ClientQuotaStore } from "./quotas/store.ts";
import type { ApiRegistry } from "./registry.ts";
import { SaslService } from "./security/sasl/authenticator.ts";
import { ensureBootstrapUsers, plainUsers, type BootstrapUser } from "./security/sasl/bootstrap.ts";
import { isSupportedMechanism } from "./security/sasl/mechanisms.ts";
import { ScramCredentialStore } from "./security/scram/credential-store.ts";
import { DIRECT_WRITE_MIN_BYTES } from "./storage/direct-io.ts";
import type { LatencyHistogram } from "./storage/latency-histogram.ts";
import { StorageLogs } from "./storage-adapter.ts";
import { brokerParticipants } from "./transactions/participants.ts";
import { TransactionCoordinator } from "./transactions/transaction-coordinator.ts";

export interface BrokerOptions extends Partial<BrokerConfig> {
  /** Defaults to one line per event on stderr. */
  logger?: Logger;
  /**
   * Users whose SCRAM-SHA-256/512 credentials are created (or updated) at start-up
   * (--sasl-admin / --sasl-user). Kept out of BrokerConfig so that passwords never
   * appear in DescribeConfigs or logs.
   */
  saslUsers?: readonly BootstrapUser[];
}

export interface RunningBroker {
  /** Address the first listener is bound to. */
  host: string;
  port: number;
  /** What clients of the first listener are told in Metadata / FindCoordinator, as "host:port". */
  advertised: string;
  /** Every listener, in configuration order, with its bound port and advertised address. */
  listeners: ListenerEndpoint[];
  /** For `new Kafka({ brokers: [bootstrap] })`. */
  bootstrap: string;
  config: BrokerConfig;
  /** Fault injection for tests. */
  control: Control;
  /** The handler registry (part 2 registers SASL handlers here). */
  registry: ApiRegistry;
  core: BrokerCore;
  /** Per-API request timing since start (or the last reset), like Kafka's RequestMetrics; see net/request-metrics.ts. */
  requestMetrics: RequestMetrics;
  /** Port of GET /metrics on 127.0.0.1 (Prometheus), null when `metrics.port` is not set. */
  metricsPort: number | null;
  /** Duration of every fsync of a partition's active segment (Kafka's LogFlushStats LogFlushRateAndTimeMs). */
  logFlushTimes: LatencyHistogram;
  /** Stops accepting, closes every connection, flushes and closes storage. */
  stop(): Promise<void>;
}

/** Kafka keeps the cluster id in meta.properties next to the logs; so do we. */
async function loadClusterId(dir: string, nodeId: number): Promise<{ id: string; created: boolean }> {
  const path = join(dir, "meta.properties");
  try {
    const text = await readFile(path, "utf8");
    const m = /^cluster\.id=(.+)$/m.exec(text);
    if (m?.[1]) return { id: m[1].trim(), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  // Kafka's cluster ids are 16 random bytes in URL-safe base64 without padding.
  const id = randomBytes(16).toString("base64url");
  const tmp = `${path}.tmp`;
  await writeFile(tmp, `version=1\ncluster.id=${id}\nnode.id=${nodeId}\n`);
  await rename(tmp, path);
  return { id, created: true };
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "";
}

/** The configured listeners; without `listeners`, one PLAINTEXT listener on host:port (part 1's behaviour). */
function listenerSpecs(config: BrokerConfig): ListenerSpec[] {
  if (config.listeners === null) return [{ name: "PLAINTEXT", securityProtocol: "PLAINTEXT", host: config.host, port: config.port }];
  return parseListeners("listeners", config.listeners, parseProtocolMap(config["listener.security.protocol.map"]));
}

function advertisedAddress(config: BrokerConfig, spec: ListenerSpec, boundPort: number, first: boolean): { host: string; port: number } {
  if (config["advertised.listeners"] !== null) {
    const a = parseListeners("advertised.listeners", config["advertised.listeners"], parseProtocolMap(config["listener.security.protocol.map"])).find((l) => l.name === spec.name);
    if (a) return { host: a.host, port: a.port === 0 ? boundPort : a.port };
  }
  const fallbackHost = isWildcard(spec.host) ? "127.0.0.1" : spec.host;
  // advertised.host/advertised.port (part 1's flags) describe the first listener.
  if (first && config["advertised.listeners"] === null) return { host: config["advertised.host"] ?? fallbackHost, port: config["advertised.port"] ?? boundPort };
  return { host: fallbackHost, port: boundPort };
}

/** Certificate and key for SSL/SASL_SSL listeners, read once at start-up. */
async function tlsOptions(config: BrokerConfig): Promise<TlsOptions> {
  const read = async (setting: keyof BrokerConfig, path: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (err) {
      throw new Error(`${setting}: cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
  };
  const keystore = config["ssl.keystore.location"];
  if (keystore !== null) {
    // Kafka's PEM keystore: private key and certificate chain in one file; OpenSSL picks each block by its header.
    const pem = await read("ssl.keystore.location", keystore);
    return { key: pem, cert: pem };
  }
  const cert = config["ssl.certificate.location"];
  const key = config["ssl.key.location"];
  if (cert === null || key === null) throw new Error("SSL listeners need ssl.keystore.location or ssl.certificate.location and ssl.key.location");
  return { cert: await read("ssl.certificate.location", cert), key: await read("ssl.key.location", key) };
}

export async function startBroker(options: BrokerOptions = {}): Promise<RunningBroker> {
  const { logger: givenLogger, saslUsers, ...settings } = options;
  const config = resolveConfig(settings);
  const logger = givenLogger ?? consoleLogger("kappa-broker", process.env.KAPPA_BROKER_DEBUG === "1");
  const logs = await StorageLogs.open(config);
  // Said once at start, since the filesystem decides (tmpfs before Linux 6.6 and some overlay filesystems refuse O_DIRECT).
  if (config["log.direct.io"]) {
    logger.info(
      logs.manager.directIoActive
        ? `log.direct.io: groups of appends of ${DIRECT_WRITE_MIN_BYTES / 1024} KiB or more bypass the page cache (O_DIRECT) in ${config["log.dirs"]}`
        : `log.direct.io is on, but ${config["log.dirs"]} refuses O_DIRECT (or aligned memory is unavailable): appends are written through the page cache`,
    );
  }
  let clusterId: string;
  let firstStart: boolean;
  try {
    ({ id: clusterId, created: firstStart } = await loadClusterId(config["log.dirs"], config["node.id"]));
  } catch (err) {
    await logs.close();
    throw err;
  }
  // A brand-new data dir has no clean-shutdown marker either; only warn about real recoveries.
  if (logs.manager.recoveredFromCrash && !firstStart) logger.warn(`data dir ${config["log.dirs"]} was not shut down cleanly; logs were recovered`);
  const specs = listenerSpecs(config);
  let sasl: SaslService;
  let tls: TlsOptions | null = null;
  let transactions: TransactionCoordinator;
  let groupMetadata: GroupMetadataLog;
  let quotaStore: ClientQuotaStore;
  // The coordinator's markers wake parked fetches through the core, which is built once the coordinator is open.
  let core: BrokerCore | null = null;
  try {
    if (specs.some((l) => usesTls(l.securityProtocol))) tls = await tlsOptions(config);
    const credentials = await ScramCredentialStore.open(config["log.dirs"]);
    quotaStore = await ClientQuotaStore.open(config["log.dirs"]);
    const changed = await ensureBootstrapUsers(credentials, saslUsers ?? []);
    // User names only: the passwords went into PBKDF2 and nowhere else.
    if (changed.length > 0) logger.info(`SCRAM credentials created or updated at start-up for: ${changed.join(", ")}`);
    sasl = new SaslService(credentials, enabledSaslMechanisms(config).filter(isSupportedMechanism), logger, {
      delayMs: config["connection.failed.authentication.delay.ms"],
      threshold: config["sasl.failed.authentication.backoff.threshold"],
      backoffMs: config["sasl.failed.authentication.backoff.ms"],
      maxBackoffMs: config["sasl.failed.authentication.backoff.max.ms"],
    }, plainUsers(credentials, saslUsers ?? []));
    transactions = await TransactionCoordinator.open(config["log.dirs"], brokerParticipants(logs, (t, p) => core?.appendWaiters.notify(t, p), logger), {
      maxTimeoutMs: config["transaction.max.timeout.ms"],
      abortTimedOutIntervalMs: config["transaction.abort.timed.out.transaction.cleanup.interval.ms"],
      idExpirationMs: config["transactional.id.expiration.ms"],
      removeExpiredIntervalMs: config["transaction.remove.expired.transaction.cleanup.interval.ms"],
    });
    try {
      // Kafka's __consumer_offsets takes records up to message.max.bytes; so does the group metadata log.
      groupMetadata = await GroupMetadataLog.open(config["log.dirs"], { maxRecordBytes: config["message.max.bytes"], warn: (m) => logger.warn(m) });
    } catch (err) {
      await transactions.stop();
      throw err;
    }
  } catch (err) {
    await logs.close();
    throw err;
  }
  core = new BrokerCore(config, logs, clusterId, logger, sasl, transactions, groupMetadata, quotaStore);
  // Decided transactions left by a crash get their markers now, before any client is served.
  transactions.start();
  core.gate = sasl.gate;
  for (const api of CORE_APIS) core.registry.register(api);

  let nextConnectionId = 1;
  // One read buffer for every plain connection of this broker (see read-buffer.ts for why that is safe).
  const readBuffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  // Its start, for a read that should bring only the start of a large frame (Connection `wantsShortRead`).
  const readBufferHead = readBuffer.subarray(0, DIRECT_READ_MIN_BYTES);
  // One pool of large frame buffers for all connections (connection.ts FRAME_POOL_BYTES).
  const framePool = new FramePool(FRAME_POOL_BYTES);
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const endpoints: ListenerEndpoint[] = [];
  const closeServers = () => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  try {
    for (const [i, spec] of specs.entries()) {
      // Filled in once bound; connections only arrive after that.
      const endpoint: ListenerEndpoint = { ...spec, boundPort: 0, advertisedHost: "", advertisedPort: 0 };
      const listenerTls = tls && usesTls(spec.securityProtocol) ? tls : null;
      const withTls = listenerTls !== null;
      const accept = (accepted: Socket) => {
        let conn: Connection | null = null;
        // Plain TCP: reads go to the shared read buffer (read-buffer.ts), the bytes reaching the
        // connection through `receive`, or, for the rest of a large frame, straight into that
        // frame's buffer (`readTarget`, reported with `receiveDirect`). Reading starts here, and
        // no callback runs before `conn` is set (until then the target is the shared buffer).
        const adopted = withTls
          ? null
          : adoptWithReadBuffer(
              accepted,
              () => conn?.readTarget() ?? (conn?.wantsShortRead() ? readBufferHead : readBuffer),
              (buffer, n) => (buffer === readBuffer || buffer === readBufferHead ? conn?.receive(buffer, n) : conn?.receiveDirect(n)),
            );
        const socket = adopted ?? accepted;
        if (adopted) {
          sockets.add(adopted);
          adopted.on("close", () => sockets.delete(adopted));
        }
        conn = new Connection(socket, core, nextConnectionId++, { externalReads: adopted !== null, framePool });
        core.sessionListeners.set(conn.session, endpoint);
        // SASL listeners start in the gate's pre-authentication state (no request is read before this returns).
        if (usesSasl(spec.securityProtocol)) conn.session.state = "authenticating";
        core.connections.add(conn);
        if (!adopted && !withTls) accepted.resume();
      };
      // A TLS server hands over the decrypted TLSSocket after its handshake ("secureConnection").
      const server: Server = listenerTls ? createTlsServer(listenerTls, accept) : createServer({ pauseOnConnect: true }, accept);
      servers.push(await listen(server, spec, config, endpoints, endpoint, i === 0, sockets, logger));
    }
  } catch (err) {
    await closeServers();
    await transactions.stop();
    await core.groups.close();
    await logs.close();
    throw err;
  }
  const firstEndpoint = endpoints[0];
  if (!firstEndpoint) throw new Error("no listener");
  core.advertisedHost = firstEndpoint.advertisedHost;
  core.advertisedPort = firstEndpoint.advertisedPort;
  for (const e of endpoints) {
    logger.info(`listening on ${e.name}://${e.host}:${e.boundPort} (${e.securityProtocol}), advertised as ${e.advertisedHost}:${e.advertisedPort}`);
  }
  core.metrics.bindLogs({
    *sizes() {
      for (const t of logs.manager.listTopics()) {
        for (let p = 0; p < t.partitions; p++) {
          const log = logs.manager.partition(t.name, p);
          if (log) yield { topic: t.name, partition: p, bytes: log.size };
        }
      }
    },
  });
  let metricsServer: HttpServer | null = null;
  if (config["metrics.port"] !== null) {
    try {
      metricsServer = await core.metrics.serve(config["metrics.port"], (m) => logger.warn(m));
    } catch (err) {
      await closeServers();
      await transactions.stop();
      await core.groups.close();
      await logs.close();
      throw new Error(`metrics.port ${config["metrics.port"]}: cannot listen on 127.0.0.1 (${err instanceof Error ? err.message : String(err)})`, { cause: err });
    }
  }
  const metricsAddress = metricsServer?.address();
  const metricsPort = metricsAddress && typeof metricsAddress === "object" ? metricsAddress.port : null;
  if (metricsPort !== null) logger.info(`metrics at http://127.0.0.1:${metricsPort}/metrics`);

  // Retention and compaction run in the background at log.retention.check.interval.ms.
  let maintenanceRunning = false;
  const maintenanceTimer = setInterval(() => {
    if (maintenanceRunning) return;
    maintenanceRunning = true;
    logs
      .maintenance()
      .then(
        (r) => {
          if (r.segments > 0 || r.records > 0) logger.info(`retention deleted ${r.segments} segment(s); compaction removed ${r.records} record(s)`);
        },
        (err: unknown) => logger.error(`log maintenance failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
      )
      .finally(() => {
        maintenanceRunning = false;
      });
  }, Math.min(config["log.retention.check.interval.ms"], 2 ** 31 - 1));
  maintenanceTimer.unref();

  // One sweep enforces connections.max.idle.ms and socket.request.receive.timeout.ms on every connection.
  const idleMs = config["connections.max.idle.ms"];
  const sweepMs = Math.max(10, Math.min(1000, Math.floor(Math.min(idleMs >= 0 ? idleMs : Infinity, config["socket.request.receive.timeout.ms"]) / 4)));
  const sweepTimer = setInterval(() => {
    const now = Date.now();
    for (const conn of [...core.connections]) conn.checkTimeouts(now);
  }, sweepMs);
  sweepTimer.unref();

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearInterval(maintenanceTimer);
      clearInterval(sweepTimer);
      const closed = closeServers();
      for (const s of sockets) s.destroy();
      await closed;
      if (metricsServer) {
        const server = metricsServer;
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await core.groups.close();
      sasl.failures.close();
      // After the connections: no new transitions; the ones in flight finish (markers included) before the logs close.
      await transactions.stop();
      await logs.close();
      logger.info(`stopped (data dir ${config["log.dirs"]})`);
    })();
    return stopping;
  };

  return {
    host: firstEndpoint.host,
    port: firstEndpoint.boundPort,
    listeners: endpoints,
    advertised: `${core.advertisedHost}:${core.advertisedPort}`,
    bootstrap: `${core.advertisedHost}:${core.advertisedPort}`,
    config,
    control: core.control,
    registry: core.registry,
    core,
    requestMetrics: core.requestMetrics,
    metricsPort,
    logFlushTimes: logs.manager.flushTimes,
    stop,
  };
}

/** Binds one listener and records its endpoint; raw sockets (also those still in a TLS handshake) are tracked for stop(). */
async function listen(
  server: Server,
  spec: ListenerSpec,
  config: BrokerConfig,
  endpoints: ListenerEndpoint[],
  endpoint: ListenerEndpoint,
  first: boolean,
  sockets: Set<Socket>,
  logger: Logger,
): Promise<Server> {
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // A failed TLS handshake is the client's problem (wrong CA, plaintext client on a TLS port).
  server.on("tlsClientError", (err: Error, socket: Socket) => logger.debug(`${spec.name}: TLS handshake with ${socket.remoteAddress ?? "?"} failed: ${err.message}`));
  // Many idle connections must stay cheap: no per-connection timers, only listeners.
  server.maxConnections = 10000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(spec.port, spec.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => logger.error(`listener ${spec.name} error: ${err.message}`));
  const address = server.address();
  endpoint.boundPort = typeof address === "object" && address ? address.port : spec.port;
  const adv = advertisedAddress(config, spec, endpoint.boundPort, first);
  endpoint.advertisedHost = adv.host;
  endpoint.advertisedPort = adv.port;
  endpoints.push(endpoint);
  return server;
}
