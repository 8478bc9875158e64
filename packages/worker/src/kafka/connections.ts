/*
 * The worker's long-lived connections to one cluster: one kafkajs admin client
 * (ACLs, configs, groups) and one raw protocol connection per broker for what
 * kafkajs cannot send or sends slowly. Each is opened on first use and
 * reopened after it breaks; nothing here opens a connection per request.
 */
import { readFileSync } from "node:fs";
// kafkajs is CommonJS: under Node's own ESM loader only its default export is
// reliable (the enums are not detected as named exports).
import kafkajs, { type Admin, type SASLOptions } from "kafkajs";
import { ApiKey, apiName, ErrorCode, ZERO_UUID } from "@kappa/kafka-protocol";
import { KafkaProtocolError, KafkaConnection, type KafkaConnectionOptions, type SaslMechanism } from "@kappa/kafka-protocol/client";
import type { Logger } from "../log.ts";
import type { KafkaRequestObserver } from "../metrics.ts";

const { Kafka, logLevel } = kafkajs;

export interface KafkaConnectionSettings {
  brokers: string[];
  /** null: PLAINTEXT / SSL listener without SASL. */
  sasl: { mechanism: SaslMechanism; username: string; password: string } | null;
  ssl: boolean;
  caFile?: string;
  clientId: string;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Told of every request sent (API, duration, failed or not) for the worker's metrics; absent: not measured. */
  metrics?: KafkaRequestObserver;
}

export interface ClusterMetadata {
  brokers: Map<number, string>;
  controller: number;
  /** topicId: base64url of the 16 bytes (Metadata v10+), null on older clusters. */
  topics: Map<string, { internal: boolean; topicId: string | null; partitions: { partitionId: number; leader: number }[] }>;
}

/** How long cached leaders, broker addresses and group coordinators are trusted before metadata is read again. */
const CACHE_MS = 60_000;

export class ClusterConnections {
  /*
   * Caches for the observer's every-5-s requests at scale: without them each
   * ListOffsets round re-read the metadata of every topic (tens of thousands
   * of partitions) and each group needed a FindCoordinator. A cached leader
   * or coordinator that moved is detected by the error the broker answers
   * (NOT_LEADER_OR_FOLLOWER, NOT_COORDINATOR, ...): callers invalidate it and
   * retry once.
   */
  private readonly leaderCache = new Map<string, { at: number; leaders: number[] }>();
  private brokerCache: { at: number; brokers: Map<number, string> } | null = null;
  private readonly coordinatorCache = new Map<string, { at: number; address: string }>();
  private readonly adminClient: Admin;
  private adminConnected: Promise<void> | null = null;
  private readonly pool = new Map<string, Promise<KafkaConnection>>();
  private readonly tls: KafkaConnectionOptions["tls"];

  constructor(
    private readonly settings: KafkaConnectionSettings,
    private readonly log: Logger,
  ) {
    const ca = settings.caFile ? [readFileSync(settings.caFile, "utf8")] : undefined;
    this.tls = settings.ssl ? (ca ? { ca } : {}) : null;
    const sasl: SASLOptions | undefined = settings.sasl
      ? settings.sasl.mechanism === "PLAIN"
        ? { mechanism: "plain", username: settings.sasl.username, password: settings.sasl.password }
        : settings.sasl.mechanism === "SCRAM-SHA-256"
          ? { mechanism: "scram-sha-256", username: settings.sasl.username, password: settings.sasl.password }
          : { mechanism: "scram-sha-512", username: settings.sasl.username, password: settings.sasl.password }
      : undefined;
    const kafka = new Kafka({
      clientId: settings.clientId,
      brokers: settings.brokers,
      ssl: settings.ssl ? (ca ? { ca } : true) : undefined,
      sasl,
      connectionTimeout: settings.connectionTimeoutMs ?? 3_000,
      requestTimeout: settings.requestTimeoutMs ?? 15_000,
      // Few client-side retries: the task runner owns retrying, with backoff and a record of each attempt.
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1_000 },
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => {
        const { message, ...extra } = entry.log;
        this.log.debug("kafkajs", { level: entry.level, namespace: entry.namespace, message, ...pickSafe(extra) });
      },
    });
    this.adminClient = kafka.admin();
    const metrics = settings.metrics;
    if (metrics) {
      // kafkajs reports each answered request with its API name and duration (ms), and each timeout.
      this.adminClient.on(this.adminClient.events.REQUEST, (e) => metrics.kafkaRequest(e.payload.apiName, e.payload.duration / 1000, false));
      this.adminClient.on(this.adminClient.events.REQUEST_TIMEOUT, (e) => metrics.kafkaRequest(e.payload.apiName, 0, true));
    }
  }

  async admin(): Promise<Admin> {
    this.adminConnected ??= this.adminClient.connect().catch((error: unknown) => {
      this.adminConnected = null;
      throw error;
    });
    await this.adminConnected;
    return this.adminClient;
  }

  /** A raw connection to `address`, reused until it breaks. */
  raw(address: string): Promise<KafkaConnection> {
    const existing = this.pool.get(address);
    if (existing) {
      return existing.then((conn) => {
        if (conn.isOpen) return conn;
        this.pool.delete(address);
        return this.raw(address);
      });
    }
    const [host, port] = splitAddress(address);
    const opening = KafkaConnection.open({
      host,
      port,
      clientId: this.settings.clientId,
      clientSoftwareName: "kappa-worker",
      sasl: this.settings.sasl,
      tls: this.tls,
      connectTimeoutMs: this.settings.connectionTimeoutMs ?? 3_000,
      requestTimeoutMs: this.settings.requestTimeoutMs ?? 15_000,
    });
    const metrics = this.settings.metrics;
    if (metrics) void opening.then((conn) => timeRequests(conn, metrics), () => undefined);
    this.pool.set(address, opening);
    opening.catch(() => this.pool.delete(address));
    return opening;
  }

  /** Any broker: tries the bootstrap list in order. */
  async any(): Promise<KafkaConnection> {
    let last: unknown;
    for (const address of this.settings.brokers) {
      try {
        return await this.raw(address);
      } catch (error) {
        last = error;
      }
    }
    throw last instanceof Error ? last : new Error(String(last));
  }

  /**
   * Metadata over the raw connection, for exactly the topics asked (null: all).
   * kafkajs' admin keeps a growing set of "target topics" and refreshes all of
   * them on nearly every admin call, which makes each call O(topics touched so
   * far); asking for metadata here keeps that set empty and every call O(1).
   */
  async metadata(topics: string[] | null): Promise<ClusterMetadata> {
    const conn = await this.any();
    const version = conn.pickVersion(ApiKey.Metadata, 1, 12);
    const res = await conn.request(
      ApiKey.Metadata,
      { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: false },
      version,
    );
    const brokers = new Map(res.brokers.map((b) => [b.nodeId, `${b.host.includes(":") ? `[${b.host}]` : b.host}:${b.port}`]));
    const out: ClusterMetadata["topics"] = new Map();
    for (const t of res.topics) {
      if (t.name === null || t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) continue;
      // LEADER_NOT_AVAILABLE: just created, leaders still being elected — the topic exists.
      if (t.errorCode !== 0 && t.errorCode !== ErrorCode.LEADER_NOT_AVAILABLE) throw new KafkaProtocolError(t.errorCode, `metadata of topic ${t.name}`);
      out.set(t.name, { internal: t.isInternal, topicId: version >= 10 && t.topicId !== ZERO_UUID ? t.topicId : null, partitions: t.partitions.map((p) => ({ partitionId: p.partitionIndex, leader: p.leaderId })).sort((a, b) => a.partitionId - b.partitionId) });
    }
    const at = Date.now();
    this.brokerCache = { at, brokers };
    for (const [name, t] of out) this.leaderCache.set(name, { at, leaders: t.partitions.map((p) => p.leader) });
    return { brokers, controller: res.controllerId, topics: out };
  }

  async brokerAddresses(): Promise<Map<number, string>> {
    if (this.brokerCache && Date.now() - this.brokerCache.at < CACHE_MS) return this.brokerCache.brokers;
    return (await this.metadata([])).brokers;
  }

  /**
   * Leader of every partition of these topics (per topic, index = partition),
   * from the cache where it is fresh, else from metadata (in requests of at
   * most 2,000 topics). Topics that do not exist are absent.
   */
  async partitionLeaders(topics: string[]): Promise<{ leaders: Map<string, readonly number[]>; brokers: Map<number, string> }> {
    const now = Date.now();
    const stale = topics.filter((t) => {
      const c = this.leaderCache.get(t);
      return !c || now - c.at >= CACHE_MS;
    });
    const unique = [...new Set(stale)];
    for (let i = 0; i < unique.length; i += 2_000) {
      const asked = unique.slice(i, i + 2_000);
      const meta = await this.metadata(asked);
      for (const t of asked) if (!meta.topics.has(t)) this.leaderCache.delete(t);
    }
    const leaders = new Map<string, readonly number[]>();
    for (const t of topics) {
      const c = this.leaderCache.get(t);
      if (c) leaders.set(t, c.leaders);
    }
    return { leaders, brokers: await this.brokerAddresses() };
  }

  /** Forget cached leaders (a broker answered that it no longer leads them). */
  invalidateLeaders(topics: Iterable<string>): void {
    for (const t of topics) this.leaderCache.delete(t);
  }

  /** Forget cached coordinators (NOT_COORDINATOR and friends). */
  invalidateCoordinators(groupIds: Iterable<string>): void {
    for (const g of groupIds) this.coordinatorCache.delete(g);
  }

  /** Metadata of the topics that exist; missing ones are simply absent. */
  async topicMetadata(topics: string[]): Promise<{ name: string; partitions: { partitionId: number; leader: number }[] }[]> {
    const unique = [...new Set(topics)];
    const out: { name: string; partitions: { partitionId: number; leader: number }[] }[] = [];
    // At most 2,000 topics per Metadata request: bounded frames at 10,000+ topics.
    for (let i = 0; i < unique.length; i += 2_000) {
      const meta = await this.metadata(unique.slice(i, i + 2_000));
      for (const [name, t] of meta.topics) out.push({ name, partitions: t.partitions });
    }
    return out;
  }

  /** Group id → coordinator address (cached; see invalidateCoordinators). */
  async groupCoordinators(groupIds: string[]): Promise<Map<string, string>> {
    const now = Date.now();
    const out = new Map<string, string>();
    const missing: string[] = [];
    // Groups come and go: drop expired entries so the cache stays the size of the live set.
    if (this.coordinatorCache.size > 2 * groupIds.length + 1_000) {
      for (const [g, c] of this.coordinatorCache) if (now - c.at >= CACHE_MS) this.coordinatorCache.delete(g);
    }
    for (const g of groupIds) {
      const c = this.coordinatorCache.get(g);
      if (c && now - c.at < CACHE_MS) out.set(g, c.address);
      else missing.push(g);
    }
    if (missing.length > 0) {
      for (const [g, address] of await this.findCoordinators(missing)) {
        out.set(g, address);
        this.coordinatorCache.set(g, { at: now, address });
      }
    }
    return out;
  }

  private async findCoordinators(groupIds: string[]): Promise<Map<string, string>> {
    const conn = await this.any();
    const out = new Map<string, string>();
    const address = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;
    if (conn.supports(ApiKey.FindCoordinator, 4)) {
      const version = conn.pickVersion(ApiKey.FindCoordinator, 4, 6);
      for (let i = 0; i < groupIds.length; i += 500) {
        const res = await conn.request(ApiKey.FindCoordinator, { keyType: 0, coordinatorKeys: groupIds.slice(i, i + 500) }, version);
        for (const c of res.coordinators) {
          if (c.errorCode !== 0) throw new KafkaProtocolError(c.errorCode, c.errorMessage ?? `coordinator of group ${c.key}`);
          out.set(c.key, address(c.host, c.port));
        }
      }
      return out;
    }
    const version = conn.pickVersion(ApiKey.FindCoordinator, 1, 3);
    for (const groupId of groupIds) {
      const res = await conn.request(ApiKey.FindCoordinator, { key: groupId, keyType: 0 }, version);
      if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, res.errorMessage ?? `coordinator of group ${groupId}`);
      out.set(groupId, address(res.host, res.port));
    }
    return out;
  }

  async close(): Promise<void> {
    const conns = [...this.pool.values()];
    this.pool.clear();
    for (const c of conns) {
      // A connection that never opened has nothing to close; its error was
      // already reported to the caller that asked for it.
      await c.then((conn) => conn.close()).catch(() => undefined);
    }
    if (this.adminConnected) await this.adminClient.disconnect();
    this.adminConnected = null;
  }
}

function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(":");
  const host = address.slice(0, i).replace(/^\[|\]$/g, "");
  return [host, Number(address.slice(i + 1))];
}

/** kafkajs log extras may include broker addresses and errors, never credentials; keep primitives only. */
function pickSafe(extra: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(extra)) {
    if (/sasl|password|secret|token/i.test(k)) continue;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
  }
  return out;
}

/** Wraps one raw connection's `request` so each request's API, duration and failure reach the metrics. */
function timeRequests(conn: KafkaConnection, metrics: KafkaRequestObserver): void {
  const send = conn.request.bind(conn);
  conn.request = ((apiKey: number, body: never, version: number) => {
    const started = performance.now();
    const api = apiName(apiKey);
    return send(apiKey as never, body, version).then(
      (res: unknown) => {
        metrics.kafkaRequest(api, (performance.now() - started) / 1000, false);
        return res;
      },
      (error: unknown) => {
        metrics.kafkaRequest(api, (performance.now() - started) / 1000, true);
        throw error;
      },
    );
  }) as KafkaConnection["request"];
}
