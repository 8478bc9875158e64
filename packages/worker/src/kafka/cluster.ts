/*
 * What the worker needs from a Kafka cluster, in Kafka's own terms. The
 * reconciler and the observer only see this interface; KafkaJsCluster
 * (kafkajs-cluster.ts) implements it against any Kafka-compatible cluster.
 */

import type { FetchedPartition, FetchOptions, FetchRequestPart } from "./records.ts";
export type AclOperation = "ALL" | "READ" | "WRITE" | "CREATE" | "DELETE" | "ALTER" | "DESCRIBE" | "CLUSTER_ACTION" | "DESCRIBE_CONFIGS" | "ALTER_CONFIGS" | "IDEMPOTENT_WRITE";
export type AclResourceType = "TOPIC" | "GROUP" | "CLUSTER" | "TRANSACTIONAL_ID";
export type AclPatternType = "LITERAL" | "PREFIXED";

/** One ACL binding, exactly as Kafka stores it. */
export interface ScramCredential {
  salt: Buffer;
  saltedPassword: Buffer;
  iterations: number;
}

/** The client quota keys the catalog sets on a service account's Kafka user (its quota class). */
export type UserQuotaKey = "producer_byte_rate" | "consumer_byte_rate" | "request_percentage";

/** Keys to set and keys to remove on one user's `user` quota entity. */
export interface UserQuotaChange {
  user: string;
  set: Partial<Record<UserQuotaKey, number>>;
  remove: UserQuotaKey[];
}

export interface ScramCredentialUpsert {
  user: string;
  mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512";
  credential: ScramCredential;
}

/** A resource pattern of an ACL binding: what DescribeAcls can be asked about instead of a principal. */
export interface AclResourcePattern {
  resourceType: AclResourceType;
  resourceName: string;
  patternType?: AclPatternType;
}

export interface AclBinding {
  resourceType: AclResourceType;
  resourceName: string;
  patternType: AclPatternType;
  principal: string;
  host: string;
  operation: AclOperation;
  permission: "ALLOW" | "DENY";
}

export interface TopicSpec {
  name: string;
  partitions: number;
  configs: Record<string, string>;
}

export interface TopicDescription {
  name: string;
  partitions: number;
  /** Effective value of every config the cluster reports (overrides and defaults). */
  configs: Record<string, string>;
}

export type OffsetSpec = "latest" | "earliest" | "earliestLocal" | "latestTiered";

export interface PartitionRef {
  topic: string;
  partition: number;
}

export interface GroupDescription {
  groupId: string;
  /** Kafka's group state: classic groups Empty, PreparingRebalance, CompletingRebalance, Stable, Dead; KIP-848 consumer groups Empty, Assigning, Reconciling, Stable. */
  state: string;
  members: number;
  protocolType: string;
  /** "consumer": a KIP-848 group (`group.protocol=consumer`, described with ConsumerGroupDescribe); "classic": JoinGroup/SyncGroup. */
  groupType: "classic" | "consumer";
  /** Who holds each assigned partition (classic groups: from the members' ConsumerProtocolAssignment; consumer groups: their current assignment). */
  assignment: GroupAssignment[];
}

export interface GroupAssignment {
  topic: string;
  partition: number;
  memberId: string;
  clientId: string;
  clientHost: string;
}

/** A whole topic: partitions 0 … partitions − 1. */
export interface TopicPartitions {
  topic: string;
  partitions: number;
}

/** Per topic, one value per partition (index = partition number). No per-partition keys: at 60,000 partitions they were most of the observer's garbage. */
export type PerPartition<T> = Map<string, T[]>;

/** Which topics a caller wants: any set or map of topic names (a consumer account may hold hundreds). */
export interface TopicFilter {
  has(topic: string): boolean;
}

/** Key of a partition in result maps (NUL cannot occur in a topic name). */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export interface KafkaCluster {
  /** Names of every topic the admin principal may describe (internal ones excluded). */
  listTopics(): Promise<string[]>;
  /** Partition counts and effective configs (only `configNames` when given); topics that do not exist are absent from the map. */
  describeTopics(names: string[], configNames?: string[]): Promise<Map<string, TopicDescription>>;
  /** Creates topics; one that already exists is not an error (another worker may have won). */
  createTopics(specs: TopicSpec[]): Promise<void>;
  /** Grows a topic to `count` partitions (Kafka cannot shrink). */
  createPartitions(topic: string, count: number): Promise<void>;
  /** Sets exactly these keys, leaving every other override as it is (IncrementalAlterConfigs SET). */
  setTopicConfigs(topic: string, configs: Record<string, string>): Promise<void>;
  deleteTopics(names: string[]): Promise<void>;

  /** Every ACL binding of these principals (all principals when omitted). */
  describeAcls(principals?: string[]): Promise<AclBinding[]>;
  /** Every ACL binding, of any principal, on exactly these resource patterns (no pattern type: LITERAL and PREFIXED of that name). */
  describeAclsOn(patterns: readonly AclResourcePattern[]): Promise<AclBinding[]>;
  createAcls(bindings: AclBinding[]): Promise<void>;
  /** Deletes exactly these bindings (literal filters, nothing wider). */
  deleteAcls(bindings: AclBinding[]): Promise<void>;

  /** SCRAM mechanisms present per user; users without credentials are absent. */
  describeScramUsers(users: string[]): Promise<Map<string, ("SCRAM-SHA-256" | "SCRAM-SHA-512")[]>>;
  upsertScramUser(user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", password: string): Promise<void>;
  /** Sets a SCRAM credential already salted (what AlterUserScramCredentials carries): the same credential on several clusters. */
  upsertScramCredential(user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", credential: ScramCredential): Promise<void>;
  /** Many users' salted credentials in one AlterUserScramCredentials request. */
  upsertScramCredentials(users: readonly ScramCredentialUpsert[]): Promise<void>;

  /** Client quotas (DescribeClientQuotas) set on each of these users' own `user` entity, owned keys only; users without any are absent. */
  describeUserQuotas(users: readonly string[]): Promise<Map<string, Partial<Record<UserQuotaKey, number>>>>;
  /** Sets and removes keys on users' `user` quota entities (AlterClientQuotas). */
  alterUserQuotas(changes: readonly UserQuotaChange[]): Promise<void>;

  /** The cluster's `super.users` (`User:<name>` entries); null when it will not say (no DESCRIBE_CONFIGS on the cluster). */
  superUsers(): Promise<string[] | null>;
  /** The brokers the cluster's metadata lists now (node id → host:port): in KRaft, the registered, unfenced ones. Never cached. */
  liveBrokers(): Promise<Map<number, string>>;
  /** Whether its brokers offer tiered storage (`remote.log.storage.system.enable` on every broker); null when they will not say. */
  tieredStorageEnabled(): Promise<boolean | null>;

  /** Partition counts (metadata only). */
  partitionCounts(topics: string[]): Promise<Map<string, number>>;
  /** Offsets per partition; null where the cluster cannot say (API or version missing, UNSUPPORTED_VERSION). */
  listOffsets(topics: TopicPartitions[], spec: OffsetSpec): Promise<PerPartition<bigint | null>>;
  /** Local bytes per partition summed over log dirs (DescribeLogDirs); null when the cluster does not offer it. */
  localBytes(topics: TopicPartitions[]): Promise<PerPartition<bigint> | null>;
  /** Bytes in remote (tiered) storage per partition; null when the cluster does not expose it. */
  remoteBytes(topics: TopicPartitions[]): Promise<PerPartition<bigint> | null>;
  listGroups(): Promise<string[]>;
  describeGroups(groupIds: string[]): Promise<GroupDescription[]>;
  /** Committed offsets per group for the topics the filter accepts (keyed by partitionKey); partitions without a commit are absent. */
  committedOffsets(requests: { groupId: string; topics: TopicFilter }[]): Promise<Map<string, Map<string, bigint>>>;

  /** Topic-level config overrides per topic (the cluster scan, for topics the catalog does not manage). */
  topicOverrides(names: string[]): Promise<Map<string, Record<string, string>>>;
  /** Every committed offset of each group, all topics (the cluster scan: who reads what). */
  allCommittedOffsets(groupIds: string[]): Promise<Map<string, GroupCommits>>;
  /** Records by partition (no consumer group): Fetch from each partition's offset. */
  fetchRecords(parts: FetchRequestPart[], options?: FetchOptions): Promise<Map<string, FetchedPartition>>;
  /** First offset at or after a timestamp per partition (null: none, i.e. the end). */
  offsetsForTimestamp(partitions: PartitionRef[], timestampMs: bigint): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>>;
  /** The record with the largest timestamp per partition (ListOffsets −3); null: empty partition. */
  maxTimestamps(partitions: PartitionRef[]): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>>;
  /** Moves an inactive group's committed offsets (admin; refused while the group has members). Error code per partition. */
  commitGroupOffsets(groupId: string, offsets: { topic: string; partition: number; offset: bigint }[]): Promise<Map<string, number>>;

  close(): Promise<void>;
}

export interface GroupCommits {
  /** topic → partition → committed offset (only partitions with a commit). */
  topics: Map<string, Map<number, bigint>>;
  /** Non-zero when the group's offsets could not be read (e.g. GROUP_AUTHORIZATION_FAILED). */
  errorCode: number;
}
export type { FetchedPartition, FetchOptions, FetchRequestPart } from "./records.ts";
