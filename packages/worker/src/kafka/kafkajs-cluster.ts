/*
 * KafkaCluster over kafkajs 2.2.4 (one long-lived admin client: topics,
 * configs, ACLs, groups, committed offsets) plus raw protocol connections, one
 * per broker and long-lived too, for what kafkajs cannot send:
 * AlterUserScramCredentials / DescribeUserScramCredentials (KIP-554),
 * ListOffsets v8/v9 with EARLIEST_LOCAL (−4) and LATEST_TIERED (−5) (KIP-405/1005),
 * DescribeLogDirs, and IncrementalAlterConfigs (kafkajs only has the legacy
 * AlterConfigs, which replaces every override of a topic — it would wipe
 * settings an operator made outside the catalog).
 */
import { readFileSync } from "node:fs";
// kafkajs is CommonJS: under Node's own ESM loader only its default export is
// reliable (the enums are not detected as named exports).
import kafkajs, { type Admin, type AclEntry, type AclFilter, type SASLOptions } from "kafkajs";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import type { Logger } from "../log.ts";
import { SCRAM_MECHANISM_CODE, scramUpsertion } from "../scram.ts";
import {
  partitionKey,
  type AclBinding,
  type AclOperation,
  type GroupDescription,
  type KafkaCluster,
  type OffsetSpec,
  type PartitionRef,
  type TopicDescription,
  type TopicSpec,
} from "./cluster.ts";
import { KafkaProtocolError, RawConnection, UnsupportedApiError, type RawConnectionOptions, type SaslMechanism } from "./raw-connection.ts";

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, Kafka, logLevel, ResourcePatternTypes } = kafkajs;
type AclResourceTypes = kafkajs.AclResourceTypes;
type AclOperationTypes = kafkajs.AclOperationTypes;

/** Read-only topic config through which the project's broker reports tiered bytes per partition (packages/broker/README.md). */
export const REMOTE_LOG_SIZE_CONFIG = "kappa.remote.log.size.bytes";

export interface KafkaConnectionSettings {
  brokers: string[];
  /** null: PLAINTEXT / SSL listener without SASL. */
  sasl: { mechanism: SaslMechanism; username: string; password: string } | null;
  ssl: boolean;
  caFile?: string;
  clientId: string;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

const RESOURCE_TYPES: Record<AclBinding["resourceType"], AclResourceTypes> = {
  TOPIC: AclResourceTypes.TOPIC,
  GROUP: AclResourceTypes.GROUP,
  CLUSTER: AclResourceTypes.CLUSTER,
  TRANSACTIONAL_ID: AclResourceTypes.TRANSACTIONAL_ID,
};
const OPERATIONS: Record<AclOperation, AclOperationTypes> = {
  ALL: AclOperationTypes.ALL,
  READ: AclOperationTypes.READ,
  WRITE: AclOperationTypes.WRITE,
  CREATE: AclOperationTypes.CREATE,
  DELETE: AclOperationTypes.DELETE,
  ALTER: AclOperationTypes.ALTER,
  DESCRIBE: AclOperationTypes.DESCRIBE,
  CLUSTER_ACTION: AclOperationTypes.CLUSTER_ACTION,
  DESCRIBE_CONFIGS: AclOperationTypes.DESCRIBE_CONFIGS,
  ALTER_CONFIGS: AclOperationTypes.ALTER_CONFIGS,
  IDEMPOTENT_WRITE: AclOperationTypes.IDEMPOTENT_WRITE,
};

function reverse<K extends string, V extends number>(map: Record<K, V>): Map<number, K> {
  return new Map(Object.entries(map).map(([k, v]) => [v as number, k as K]));
}
const RESOURCE_NAMES = reverse(RESOURCE_TYPES);
const OPERATION_NAMES = reverse(OPERATIONS);

function toKafkaJsAcl(b: AclBinding): AclEntry {
  return {
    resourceType: RESOURCE_TYPES[b.resourceType],
    resourceName: b.resourceName,
    resourcePatternType: b.patternType === "LITERAL" ? ResourcePatternTypes.LITERAL : ResourcePatternTypes.PREFIXED,
    principal: b.principal,
    host: b.host,
    operation: OPERATIONS[b.operation],
    permissionType: b.permission === "ALLOW" ? AclPermissionTypes.ALLOW : AclPermissionTypes.DENY,
  };
}

/** Kafka errors that mean "the cluster has no such feature", which the observer reports as unknown. */
function isUnsupported(error: unknown): boolean {
  return error instanceof UnsupportedApiError || (error instanceof KafkaProtocolError && (error.code === ErrorCode.UNSUPPORTED_VERSION || error.code === ErrorCode.SECURITY_DISABLED));
}

export class KafkaJsCluster implements KafkaCluster {
  private readonly admin: Admin;
  private adminConnected: Promise<void> | null = null;
  private readonly raw = new Map<string, Promise<RawConnection>>();
  private readonly tls: RawConnectionOptions["tls"];

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
    this.admin = kafka.admin();
  }

  private async adminClient(): Promise<Admin> {
    this.adminConnected ??= this.admin.connect().catch((error: unknown) => {
      this.adminConnected = null;
      throw error;
    });
    await this.adminConnected;
    return this.admin;
  }

  /** A raw connection to `address`, reused until it breaks. */
  private rawConnection(address: string): Promise<RawConnection> {
    const existing = this.raw.get(address);
    if (existing) {
      return existing.then((conn) => {
        if (conn.isOpen) return conn;
        this.raw.delete(address);
        return this.rawConnection(address);
      });
    }
    const [host, port] = splitAddress(address);
    const opening = RawConnection.open({
      host,
      port,
      clientId: this.settings.clientId,
      sasl: this.settings.sasl,
      tls: this.tls,
      connectTimeoutMs: this.settings.connectionTimeoutMs ?? 3_000,
      requestTimeoutMs: this.settings.requestTimeoutMs ?? 15_000,
    });
    this.raw.set(address, opening);
    opening.catch(() => this.raw.delete(address));
    return opening;
  }

  /** Any broker: tries the bootstrap list in order. */
  private async anyRaw(): Promise<RawConnection> {
    let last: unknown;
    for (const address of this.settings.brokers) {
      try {
        return await this.rawConnection(address);
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
  private async metadata(topics: string[] | null): Promise<ClusterMetadata> {
    const conn = await this.anyRaw();
    const version = conn.pickVersion(ApiKey.Metadata, 1, 12);
    const res = await conn.request(
      ApiKey.Metadata,
      { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: false },
      version,
    );
    const brokers = new Map(res.brokers.map((b) => [b.nodeId, `${b.host.includes(":") ? `[${b.host}]` : b.host}:${b.port}`]));
    const out = new Map<string, { internal: boolean; partitions: { partitionId: number; leader: number }[] }>();
    for (const t of res.topics) {
      if (t.name === null || t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) continue;
      // LEADER_NOT_AVAILABLE: just created, leaders still being elected — the topic exists.
      if (t.errorCode !== 0 && t.errorCode !== ErrorCode.LEADER_NOT_AVAILABLE) throw new KafkaProtocolError(t.errorCode, `metadata of topic ${t.name}`);
      out.set(t.name, { internal: t.isInternal, partitions: t.partitions.map((p) => ({ partitionId: p.partitionIndex, leader: p.leaderId })).sort((a, b) => a.partitionId - b.partitionId) });
    }
    return { brokers, controller: res.controllerId, topics: out };
  }

  private async brokerAddresses(): Promise<Map<number, string>> {
    return (await this.metadata([])).brokers;
  }

  async listTopics(): Promise<string[]> {
    const meta = await this.metadata(null);
    return [...meta.topics].filter(([name, t]) => !t.internal && !name.startsWith("__")).map(([name]) => name);
  }

  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const t of await this.topicMetadata(topics)) out.set(t.name, t.partitions.length);
    return out;
  }

  /** Metadata of the topics that exist; missing ones are simply absent. */
  private async topicMetadata(topics: string[]): Promise<{ name: string; partitions: { partitionId: number; leader: number }[] }[]> {
    if (topics.length === 0) return [];
    const meta = await this.metadata([...new Set(topics)]);
    return [...meta.topics].map(([name, t]) => ({ name, partitions: t.partitions }));
  }

  async describeTopics(names: string[]): Promise<Map<string, TopicDescription>> {
    const out = new Map<string, TopicDescription>();
    const meta = await this.topicMetadata(names);
    if (meta.length === 0) return out;
    const admin = await this.adminClient();
    const configs = await admin.describeConfigs({
      resources: meta.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name })),
      includeSynonyms: false,
    });
    const byName = new Map(configs.resources.map((r) => [r.resourceName, r]));
    for (const t of meta) {
      const resource = byName.get(t.name);
      if (resource && resource.errorCode !== 0) throw new KafkaProtocolError(resource.errorCode, resource.errorMessage || `describing configs of ${t.name}`);
      const entries: Record<string, string> = {};
      for (const e of resource?.configEntries ?? []) entries[e.configName] = e.configValue;
      out.set(t.name, { name: t.name, partitions: t.partitions.length, configs: entries });
    }
    return out;
  }

  /**
   * CreateTopics sent to the controller (ZooKeeper-mode clusters refuse it
   * elsewhere with NOT_CONTROLLER; KRaft brokers forward it), replication
   * factor −1 = the cluster default (KIP-464, v4+). TOPIC_ALREADY_EXISTS is
   * success: another worker or a retry got there first. Then waits until every
   * partition has a leader, as kafkajs' waitForLeaders does.
   */
  async createTopics(specs: TopicSpec[]): Promise<void> {
    if (specs.length === 0) return;
    const meta = await this.metadata([]);
    const controller = meta.brokers.get(meta.controller);
    const conn = controller ? await this.rawConnection(controller) : await this.anyRaw();
    const version = conn.pickVersion(ApiKey.CreateTopics, 4, 7);
    const res = await conn.request(
      ApiKey.CreateTopics,
      {
        timeoutMs: 30_000,
        validateOnly: false,
        topics: specs.map((s) => ({ name: s.name, numPartitions: s.partitions, replicationFactor: -1, assignments: [], configs: Object.entries(s.configs).map(([name, value]) => ({ name, value })) })),
      },
      version,
    );
    for (const t of res.topics) {
      if (t.errorCode !== 0 && t.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) throw new KafkaProtocolError(t.errorCode, t.errorMessage ?? `creating topic ${t.name}`);
    }
    const names = specs.map((s) => s.name);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const now = await this.metadata(names);
      const ready = names.every((n) => {
        const t = now.topics.get(n);
        return t !== undefined && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0);
      });
      if (ready) return;
      if (Date.now() > deadline) throw new Error(`topics ${names.join(", ")} have no leaders 10 s after creation`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async createPartitions(topic: string, count: number): Promise<void> {
    const admin = await this.adminClient();
    await admin.createPartitions({ topicPartitions: [{ topic, count }] });
  }

  async setTopicConfigs(topic: string, configs: Record<string, string>): Promise<void> {
    const entries = Object.entries(configs);
    if (entries.length === 0) return;
    const conn = await this.anyRaw();
    const version = conn.pickVersion(ApiKey.IncrementalAlterConfigs, 0, 1);
    const res = await conn.request(
      ApiKey.IncrementalAlterConfigs,
      {
        validateOnly: false,
        // configOperation 0 = SET (AlterConfigOp.OpType); resource type 2 = TOPIC.
        resources: [{ resourceType: 2, resourceName: topic, configs: entries.map(([name, value]) => ({ name, configOperation: 0, value })) }],
      },
      version,
    );
    for (const r of res.responses) {
      if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? `altering configs of ${topic}`);
    }
  }

  async deleteTopics(names: string[]): Promise<void> {
    if (names.length === 0) return;
    const admin = await this.adminClient();
    await admin.deleteTopics({ topics: names });
  }

  async describeAcls(principals?: string[]): Promise<AclBinding[]> {
    const admin = await this.adminClient();
    const filters: AclFilter[] = (principals ?? [undefined]).map((principal) => ({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    }));
    const out: AclBinding[] = [];
    const responses = await Promise.all(filters.map((f) => admin.describeAcls(f)));
    for (const res of responses) {
      // kafkajs resolves with `{ resources }` only; a broker error is thrown, not returned.
      for (const r of res.resources) {
        const resourceType = RESOURCE_NAMES.get(r.resourceType);
        const patternType = r.resourcePatternType === ResourcePatternTypes.LITERAL ? "LITERAL" : r.resourcePatternType === ResourcePatternTypes.PREFIXED ? "PREFIXED" : null;
        if (!resourceType || !patternType) continue; // delegation tokens, users: nothing the catalog manages
        for (const acl of r.acls) {
          const operation = OPERATION_NAMES.get(acl.operation);
          if (!operation) continue;
          out.push({
            resourceType,
            resourceName: r.resourceName,
            patternType,
            principal: acl.principal,
            host: acl.host,
            operation,
            permission: acl.permissionType === AclPermissionTypes.DENY ? "DENY" : "ALLOW",
          });
        }
      }
    }
    return out;
  }

  async createAcls(bindings: AclBinding[]): Promise<void> {
    if (bindings.length === 0) return;
    const admin = await this.adminClient();
    await admin.createAcls({ acl: bindings.map(toKafkaJsAcl) });
  }

  async deleteAcls(bindings: AclBinding[]): Promise<void> {
    if (bindings.length === 0) return;
    const admin = await this.adminClient();
    // A filter with every field set matches exactly one binding (no ANY/MATCH widening).
    const res = await admin.deleteAcls({ filters: bindings.map(toKafkaJsAcl) });
    for (const f of res.filterResponses) {
      if (f.errorCode !== 0) throw new KafkaProtocolError(f.errorCode, f.errorMessage ?? "DeleteAcls failed");
    }
  }

  async describeScramUsers(users: string[]): Promise<Map<string, ("SCRAM-SHA-256" | "SCRAM-SHA-512")[]>> {
    const out = new Map<string, ("SCRAM-SHA-256" | "SCRAM-SHA-512")[]>();
    if (users.length === 0) return out;
    const conn = await this.anyRaw();
    const version = conn.pickVersion(ApiKey.DescribeUserScramCredentials, 0, 0);
    const res = await conn.request(ApiKey.DescribeUserScramCredentials, { users: [...new Set(users)].map((name) => ({ name })) }, version);
    if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, res.errorMessage ?? "DescribeUserScramCredentials failed");
    for (const r of res.results) {
      // RESOURCE_NOT_FOUND: the user has no SCRAM credentials (Kafka's answer for an unknown user).
      if (r.errorCode === ErrorCode.RESOURCE_NOT_FOUND) continue;
      if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? `describing SCRAM user ${r.user}`);
      out.set(
        r.user,
        r.credentialInfos.map((c) => (c.mechanism === SCRAM_MECHANISM_CODE["SCRAM-SHA-512"] ? "SCRAM-SHA-512" : "SCRAM-SHA-256")),
      );
    }
    return out;
  }

  async upsertScramUser(user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", password: string): Promise<void> {
    const conn = await this.anyRaw();
    const version = conn.pickVersion(ApiKey.AlterUserScramCredentials, 0, 0);
    const { salt, saltedPassword, iterations } = scramUpsertion(mechanism, password);
    const res = await conn.request(
      ApiKey.AlterUserScramCredentials,
      { deletions: [], upsertions: [{ name: user, mechanism: SCRAM_MECHANISM_CODE[mechanism], iterations, salt, saltedPassword }] },
      version,
    );
    for (const r of res.results) {
      if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? `creating SCRAM user ${user}`);
    }
  }

  async listOffsets(partitions: PartitionRef[], spec: OffsetSpec): Promise<Map<string, bigint | null>> {
    const out = new Map<string, bigint | null>();
    if (partitions.length === 0) return out;
    const timestamp = { latest: -1n, earliest: -2n, earliestLocal: -4n, latestTiered: -5n }[spec];
    // −4 needs ListOffsets v8, −5 needs v9 (KIP-1005); −1/−2 work from v1.
    const minVersion = spec === "earliestLocal" ? 8 : spec === "latestTiered" ? 9 : 1;
    const meta = await this.topicMetadata([...new Set(partitions.map((p) => p.topic))]);
    const leaderOf = new Map<string, number>();
    for (const t of meta) for (const p of t.partitions) leaderOf.set(partitionKey(t.name, p.partitionId), p.leader);
    const addresses = await this.brokerAddresses();
    const byLeader = new Map<number, PartitionRef[]>();
    for (const p of partitions) {
      const leader = leaderOf.get(partitionKey(p.topic, p.partition));
      if (leader === undefined || leader < 0) {
        out.set(partitionKey(p.topic, p.partition), null);
        continue;
      }
      const list = byLeader.get(leader) ?? [];
      list.push(p);
      byLeader.set(leader, list);
    }
    await Promise.all(
      [...byLeader].map(async ([leader, refs]) => {
        const address = addresses.get(leader);
        if (!address) throw new Error(`broker ${leader} (leader of ${refs.length} partitions) is not in the cluster metadata`);
        const conn = await this.rawConnection(address);
        if (!conn.supports(ApiKey.ListOffsets, minVersion)) {
          for (const r of refs) out.set(partitionKey(r.topic, r.partition), null);
          return;
        }
        const version = conn.pickVersion(ApiKey.ListOffsets, minVersion, 9);
        const topics = new Map<string, number[]>();
        for (const r of refs) topics.set(r.topic, [...(topics.get(r.topic) ?? []), r.partition]);
        const res = await conn.request(
          ApiKey.ListOffsets,
          {
            replicaId: -1,
            isolationLevel: 0,
            topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp, currentLeaderEpoch: -1 })) })),
          },
          version,
        );
        for (const t of res.topics) {
          for (const p of t.partitions) {
            const key = partitionKey(t.name, p.partitionIndex);
            if (p.errorCode === 0) out.set(key, p.offset);
            else if (p.errorCode === ErrorCode.UNSUPPORTED_VERSION) out.set(key, null);
            else throw new KafkaProtocolError(p.errorCode, `ListOffsets ${spec} for ${t.name}-${p.partitionIndex}`);
          }
        }
      }),
    );
    return out;
  }

  async localBytes(partitions: PartitionRef[]): Promise<Map<string, bigint> | null> {
    if (partitions.length === 0) return new Map();
    const addresses = await this.brokerAddresses();
    const topics = new Map<string, number[]>();
    for (const r of partitions) topics.set(r.topic, [...(topics.get(r.topic) ?? []), r.partition]);
    const out = new Map<string, bigint>();
    try {
      // Every broker reports only its own replicas; the leader's size is what
      // a consumer reads from, so with replication we keep the largest replica.
      await Promise.all(
        [...addresses.values()].map(async (address) => {
          const conn = await this.rawConnection(address);
          const version = conn.pickVersion(ApiKey.DescribeLogDirs, 1, 4);
          const res = await conn.request(ApiKey.DescribeLogDirs, { topics: [...topics].map(([topic, ps]) => ({ topic, partitions: ps })) }, version);
          if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, "DescribeLogDirs failed");
          for (const dir of res.results) {
            if (dir.errorCode !== 0) continue; // an offline log dir holds nothing readable
            for (const t of dir.topics) {
              for (const p of t.partitions) {
                if (p.isFutureKey) continue;
                const key = partitionKey(t.name, p.partitionIndex);
                const prev = out.get(key);
                if (prev === undefined || p.partitionSize > prev) out.set(key, p.partitionSize);
              }
            }
          }
        }),
      );
    } catch (error) {
      if (isUnsupported(error)) return null;
      throw error;
    }
    return out;
  }

  /**
   * Apache Kafka exposes remote log size only as a JMX metric
   * (kafka.log.remote:RemoteLogSizeBytes), through no protocol API: unknown
   * there. The project's broker reports it as a read-only topic config,
   * `kappa.remote.log.size.bytes` (one value per partition, comma-separated),
   * which we read when present.
   */
  async remoteBytes(partitions: PartitionRef[]): Promise<Map<string, bigint> | null> {
    if (partitions.length === 0) return new Map();
    const topics = [...new Set(partitions.map((p) => p.topic))];
    const admin = await this.adminClient();
    const res = await admin.describeConfigs({
      resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: [REMOTE_LOG_SIZE_CONFIG] })),
      includeSynonyms: false,
    });
    const out = new Map<string, bigint>();
    for (const r of res.resources) {
      if (r.errorCode !== 0) return null;
      const entry = r.configEntries.find((e) => e.configName === REMOTE_LOG_SIZE_CONFIG);
      if (!entry || entry.configValue === null) return null;
      entry.configValue.split(",").forEach((v, partition) => {
        if (/^\d+$/.test(v.trim())) out.set(partitionKey(r.resourceName, partition), BigInt(v.trim()));
      });
    }
    return out;
  }

  async listGroups(): Promise<string[]> {
    const admin = await this.adminClient();
    const { groups } = await admin.listGroups();
    return groups.map((g) => g.groupId);
  }

  async describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    if (groupIds.length === 0) return [];
    const admin = await this.adminClient();
    const { groups } = await admin.describeGroups(groupIds);
    return groups.map((g) => ({ groupId: g.groupId, state: g.state, members: g.members.length, protocolType: g.protocolType }));
  }

  /**
   * Committed offsets of many groups: coordinators found with one batched
   * FindCoordinator (v4+, KIP-699) and offsets fetched with one batched
   * OffsetFetch per coordinator (v8+, KIP-709); older clusters get one request
   * per group. kafkajs' fetchOffsets would do both per group and add every
   * topic to its metadata refresh set.
   */
  async committedOffsets(requests: { groupId: string; topics: string[] }[]): Promise<Map<string, Map<string, bigint>>> {
    const out = new Map<string, Map<string, bigint>>();
    if (requests.length === 0) return out;
    const wanted = new Map(requests.map((r) => [r.groupId, new Set(r.topics)]));
    const coordinators = await this.groupCoordinators([...wanted.keys()]);
    const record = (groupId: string, topic: string, partition: number, offset: bigint, errorCode: number) => {
      if (errorCode !== 0) throw new KafkaProtocolError(errorCode, `committed offset of ${groupId} on ${topic}-${partition}`);
      if (offset < 0n || !wanted.get(groupId)?.has(topic)) return;
      const m = out.get(groupId) ?? new Map<string, bigint>();
      m.set(partitionKey(topic, partition), offset);
      out.set(groupId, m);
    };
    const byCoordinator = new Map<string, string[]>();
    for (const [groupId, address] of coordinators) byCoordinator.set(address, [...(byCoordinator.get(address) ?? []), groupId]);
    await Promise.all(
      [...byCoordinator].map(async ([address, groupIds]) => {
        const conn = await this.rawConnection(address);
        if (conn.supports(ApiKey.OffsetFetch, 8)) {
          const version = conn.pickVersion(ApiKey.OffsetFetch, 8, 9);
          for (let i = 0; i < groupIds.length; i += 200) {
            const batch = groupIds.slice(i, i + 200);
            const res = await conn.request(ApiKey.OffsetFetch, { groups: batch.map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })), requireStable: false }, version);
            for (const g of res.groups) {
              if (g.errorCode !== 0) throw new KafkaProtocolError(g.errorCode, `committed offsets of group ${g.groupId}`);
              for (const t of g.topics) for (const p of t.partitions) record(g.groupId, t.name, p.partitionIndex, p.committedOffset, p.errorCode);
            }
          }
          return;
        }
        const version = conn.pickVersion(ApiKey.OffsetFetch, 2, 7);
        for (const groupId of groupIds) {
          const res = await conn.request(ApiKey.OffsetFetch, { groupId, topics: null, requireStable: false }, version);
          if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, `committed offsets of group ${groupId}`);
          for (const t of res.topics) for (const p of t.partitions) record(groupId, t.name, p.partitionIndex, p.committedOffset, p.errorCode);
        }
      }),
    );
    return out;
  }

  /** Group id → coordinator address. */
  private async groupCoordinators(groupIds: string[]): Promise<Map<string, string>> {
    const conn = await this.anyRaw();
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
    const conns = [...this.raw.values()];
    this.raw.clear();
    for (const c of conns) {
      // A connection that never opened has nothing to close; its error was
      // already reported to the caller that asked for it.
      await c.then((conn) => conn.close()).catch(() => undefined);
    }
    if (this.adminConnected) await this.admin.disconnect();
    this.adminConnected = null;
  }
}

interface ClusterMetadata {
  brokers: Map<number, string>;
  controller: number;
  topics: Map<string, { internal: boolean; partitions: { partitionId: number; leader: number }[] }>;
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
