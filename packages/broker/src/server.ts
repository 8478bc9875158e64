// startBroker: opens storage, binds the listener, and wires connections to the
// handler registry. Returns the bound and advertised addresses and a stop().
import { createServer, type Server, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { resolveConfig, type BrokerConfig } from "./config.ts";
import { BrokerCore, consoleLogger, type Logger } from "./broker.ts";
import { Connection } from "./net/connection.ts";
import { CORE_APIS } from "./apis/index.ts";
import { StorageLogs } from "./storage-adapter.ts";
import type { Control } from "./control.ts";
import type { ApiRegistry } from "./registry.ts";

export interface BrokerOptions extends Partial<BrokerConfig> {
  /** Defaults to one line per event on stderr. */
  logger?: Logger;
}

export interface RunningBroker {
  /** Address the listener is bound to. */
  host: string;
  port: number;
  /** What clients are told in Metadata / FindCoordinator, as "host:port". */
  advertised: string;
  /** For `new Kafka({ brokers: [bootstrap] })`. */
  bootstrap: string;
  config: BrokerConfig;
  /** Fault injection for tests. */
  control: Control;
  /** The handler registry (part 2 registers SASL handlers here). */
  registry: ApiRegistry;
  core: BrokerCore;
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

export async function startBroker(options: BrokerOptions = {}): Promise<RunningBroker> {
  const { logger: givenLogger, ...settings } = options;
  const config = resolveConfig(settings);
  const logger = givenLogger ?? consoleLogger("kappa-broker", process.env.KAPPA_BROKER_DEBUG === "1");
  const logs = await StorageLogs.open(config);
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
  const core = new BrokerCore(config, logs, clusterId, logger);
  for (const api of CORE_APIS) core.registry.register(api);

  let nextConnectionId = 1;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const conn = new Connection(socket, core, nextConnectionId++);
    core.connections.add(conn);
  });
  // Many idle connections must stay cheap: no per-connection timers, only listeners.
  server.maxConnections = 10000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    await logs.close();
    throw err;
  }
  server.on("error", (err) => logger.error(`listener error: ${err.message}`));
  const address = server.address();
  const boundPort = typeof address === "object" && address ? address.port : config.port;
  core.advertisedHost = config["advertised.host"] ?? (isWildcard(config.host) ? "127.0.0.1" : config.host);
  core.advertisedPort = config["advertised.port"] ?? boundPort;

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

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearInterval(maintenanceTimer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      core.groups.shutdown();
      await logs.close();
      logger.info(`stopped (data dir ${config["log.dirs"]})`);
    })();
    return stopping;
  };

  return {
    host: config.host,
    port: boundPort,
    advertised: `${core.advertisedHost}:${core.advertisedPort}`,
    bootstrap: `${core.advertisedHost}:${core.advertisedPort}`,
    config,
    control: core.control,
    registry: core.registry,
    core,
    stop,
  };
}
