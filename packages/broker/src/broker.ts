// Shared broker state handed to every request handler through RequestContext.
import { uuidFromBytes } from "@kappa/kafka-protocol";
import type { BrokerConfig } from "./config.ts";
import { Control } from "./control.ts";
import { FetchSessionCache } from "./fetch-sessions.ts";
import { GroupCoordinator } from "./groups/coordinator.ts";
import type { GroupMetadataStore } from "./groups/group-metadata-log.ts";
import type { Logs } from "./logs.ts";
import { BrokerMetrics } from "./metrics.ts";
import type { Connection } from "./net/connection.ts";
import type { ListenerEndpoint } from "./net/listeners.ts";
import { RequestMetrics } from "./net/request-metrics.ts";
import { ClientQuotaManager } from "./quotas/manager.ts";
import type { ClientQuotaStore } from "./quotas/store.ts";
import { ApiRegistry } from "./registry.ts";
import { aclAuthorizerFromConfig, type StandardAuthorizer } from "./security/acl/from-config.ts";
import type { SaslService } from "./security/sasl/authenticator.ts";
import { allowAllAuthorizer, openGate, type Authorizer, type ConnectionGate, type Session } from "./session.ts";
import type { TransactionCoordinator } from "./transactions/transaction-coordinator.ts";

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** One line per event on stderr, with a level; debug lines only when KAPPA_BROKER_DEBUG is set. */
export function consoleLogger(prefix = "kappa-broker", debug = false): Logger {
  const line = (level: string, msg: string) => process.stderr.write(`${new Date().toISOString()} ${prefix} ${level} ${msg}\n`);
  return {
    debug: (m) => {
      if (debug) line("DEBUG", m);
    },
    info: (m) => line("INFO", m),
    warn: (m) => line("WARN", m),
    error: (m) => line("ERROR", m),
  };
}

/**
 * Wakes parked long-poll fetches when data is appended to a partition they wait on.
 * Waiters are registered per partition and removed by the fetch itself when it
 * completes, so an idle consumer costs one small closure per partition.
 */
export class AppendWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  private static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  add(topic: string, partition: number, wake: () => void): () => void {
    const k = AppendWaiters.key(topic, partition);
    let set = this.waiters.get(k);
    if (!set) {
      set = new Set();
      this.waiters.set(k, set);
    }
    set.add(wake);
    return () => {
      const s = this.waiters.get(k);
      if (!s) return;
      s.delete(wake);
      if (s.size === 0) this.waiters.delete(k);
    };
  }

  notify(topic: string, partition: number): void {
    const set = this.waiters.get(AppendWaiters.key(topic, partition));
    if (!set) return;
    for (const wake of [...set]) wake();
  }

  get size(): number {
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }
}

export class BrokerCore {
  readonly registry = new ApiRegistry();
  readonly control = new Control();
  readonly appendWaiters = new AppendWaiters();
  /** Per-API request timing (Kafka's RequestMetrics). */
  readonly requestMetrics = new RequestMetrics();
  /** Prometheus metrics (metrics.ts), served on metrics.port when set. */
  readonly metrics = new BrokerMetrics();
  /** Incremental fetch sessions (KIP-227). */
  readonly fetchSessions: FetchSessionCache;
  readonly groups: GroupCoordinator;
  /** Client quotas (src/quotas): the durable store and the sensors that enforce it. */
  readonly quotas: ClientQuotaManager;
  authorizer: Authorizer = allowAllAuthorizer;
  /** The ACL authorizer when `authorizer.class.name` is set (also `authorizer` then); null = none, ACL APIs answer SECURITY_DISABLED. */
  readonly acls: StandardAuthorizer | null;
  gate: ConnectionGate = openGate;
  /** Set once the listener is bound. */
  advertisedHost = "";
  advertisedPort = 0;
  readonly connections = new Set<Connection>();
  /** Topics being auto-created, so concurrent requests for one topic wait on one creation. */
  readonly autoCreating = new Map<string, Promise<void>>();
  /** The listener each connection came in on: Metadata/FindCoordinator advertise that listener's address. */
  readonly sessionListeners = new WeakMap<Session, ListenerEndpoint>();
  /** Sessions whose connection closes once the response in flight is written (failed SASL). */
  private readonly closingSessions = new WeakSet<Session>();

  constructor(
    readonly config: BrokerConfig,
    readonly logs: Logs,
    readonly clusterId: string,
    readonly logger: Logger,
    /** SASL exchanges and the SCRAM credential store (src/security). */
    readonly sasl: SaslService,
    /** The transaction coordinator (src/transactions): FindCoordinator key type 1 answers with this node. */
    readonly transactions: TransactionCoordinator,
    /** Durable group metadata (src/groups/group-metadata-log.ts); the coordinator loads its groups from it. */
    groupMetadata: GroupMetadataStore,
    /** Durable client quotas (src/quotas/store.ts). */
    quotaStore: ClientQuotaStore,
  ) {
    this.quotas = new ClientQuotaManager(quotaStore, config);
    this.requestMetrics.listener = (api, t, written) => this.metrics.request(api, t, written);
    this.fetchSessions = new FetchSessionCache(config["max.incremental.fetch.session.cache.slots"]);
    this.acls = aclAuthorizerFromConfig(config);
    if (this.acls) this.authorizer = this.acls;
    this.groups = new GroupCoordinator(logs.groupOffsets, groupMetadata, {
      initialRebalanceDelayMs: config["group.initial.rebalance.delay.ms"],
      minSessionTimeoutMs: config["group.min.session.timeout.ms"],
      maxSessionTimeoutMs: config["group.max.session.timeout.ms"],
      consumerSessionTimeoutMs: config["group.consumer.session.timeout.ms"],
      consumerHeartbeatIntervalMs: config["group.consumer.heartbeat.interval.ms"],
      topics: { topics: () => logs.topics().map((t) => ({ name: t.name, id: uuidFromBytes(t.topicId), partitionCount: t.partitionCount })) },
      log: (m) => logger.info(m),
      warn: (m) => logger.warn(m),
    });
  }

  get nodeId(): number {
    return this.config["node.id"];
  }

  /** Address advertised to a client: that of the listener it connected to (Kafka's per-listener endpoints). */
  advertisedFor(session: Session): { host: string; port: number } {
    const l = this.sessionListeners.get(session);
    return l ? { host: l.advertisedHost, port: l.advertisedPort } : { host: this.advertisedHost, port: this.advertisedPort };
  }

  /** Asks the connection to close after writing the response to the request being handled. */
  closeAfterResponse(session: Session): void {
    this.closingSessions.add(session);
  }

  /** For the connection: true (once) if the request just handled asked to close afterwards. */
  takeCloseAfterResponse(session: Session): boolean {
    return this.closingSessions.delete(session);
  }

  connectionClosed(conn: Connection): void {
    this.connections.delete(conn);
  }
}
