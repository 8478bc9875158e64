/*
 * KafkaCluster over kafkajs 2.2.4 (one long-lived admin client: topics,
 * configs, ACLs, groups) plus raw protocol connections, one per broker and
 * long-lived too, for what kafkajs cannot send:
 * AlterUserScramCredentials / DescribeUserScramCredentials (KIP-554),
 * AlterClientQuotas / DescribeClientQuotas (KIP-546),
 * ListOffsets v8/v9 with EARLIEST_LOCAL (−4) and LATEST_TIERED (−5) (KIP-405/1005),
 * DescribeLogDirs, batched FindCoordinator/OffsetFetch, and
 * IncrementalAlterConfigs (kafkajs only has the legacy AlterConfigs, which
 * replaces every override of a topic).
 *
 * This class only routes: each concern lives in its own file (topics.ts,
 * acls.ts, scram-users.ts, offsets.ts, storage-figures.ts, groups.ts) over the
 * shared connections (connections.ts).
 */
import type { Logger } from "../log.ts";
import { createAcls, deleteAcls, describeAcls, describeAclsOn } from "./acls.ts";
import { superUsers, tieredStorageEnabled } from "./broker-configs.ts";
import { alterUserQuotas, describeUserQuotas } from "./client-quotas.ts";
import { allCommittedOffsets, topicOverrides } from "./cluster-scan.ts";
import type { AclBinding, AclResourcePattern, GroupCommits, GroupDescription, KafkaCluster, OffsetSpec, PartitionRef, PerPartition, ScramCredential, ScramCredentialUpsert, TopicDescription, TopicFilter, TopicPartitions, TopicSpec, UserQuotaChange, UserQuotaKey } from "./cluster.ts";
import { ClusterConnections, type KafkaConnectionSettings } from "./connections.ts";
import { describeGroups, listGroups } from "./groups.ts";
import { committedOffsets, listOffsets } from "./offsets.ts";
import { commitGroupOffsets, fetchRecords, maxTimestamps, offsetsForTimestamp, type FetchedPartition, type FetchOptions, type FetchRequestPart } from "./records.ts";
import { RemoteLogSizes } from "./remote-log-metadata.ts";
import { describeScramUsers, upsertScramCredential, upsertScramCredentials, upsertScramUser } from "./scram-users.ts";
import { localBytes, remoteBytes } from "./storage-figures.ts";
import { createPartitions, createTopics, deleteTopics, describeTopics, listTopics, partitionCounts, setTopicConfigs } from "./topics.ts";

export type { KafkaConnectionSettings } from "./connections.ts";
export { REMOTE_LOG_SIZE_CONFIG } from "./storage-figures.ts";

export class KafkaJsCluster implements KafkaCluster {
  private readonly conns: ClusterConnections;
  /** Apache Kafka's remote segments as its metadata topic lists them, read incrementally (storage-figures.ts). */
  private readonly tierLog = new RemoteLogSizes();

  constructor(settings: KafkaConnectionSettings, log: Logger) {
    this.conns = new ClusterConnections(settings, log);
  }

  superUsers(): Promise<string[] | null> {
    return superUsers(this.conns);
  }

  describeUserQuotas(users: readonly string[]): Promise<Map<string, Partial<Record<UserQuotaKey, number>>>> {
    return describeUserQuotas(this.conns, users);
  }

  alterUserQuotas(changes: readonly UserQuotaChange[]): Promise<void> {
    return alterUserQuotas(this.conns, changes);
  }

  async liveBrokers(): Promise<Map<number, string>> {
    return (await this.conns.metadata([])).brokers;
  }

  tieredStorageEnabled(): Promise<boolean | null> {
    return tieredStorageEnabled(this.conns);
  }

  listTopics(): Promise<string[]> {
    return listTopics(this.conns);
  }

  partitionCounts(topics: string[]): Promise<Map<string, number>> {
    return partitionCounts(this.conns, topics);
  }

  describeTopics(names: string[], configNames?: string[]): Promise<Map<string, TopicDescription>> {
    return describeTopics(this.conns, names, configNames);
  }

  createTopics(specs: TopicSpec[]): Promise<void> {
    return createTopics(this.conns, specs);
  }

  createPartitions(topic: string, count: number): Promise<void> {
    return createPartitions(this.conns, topic, count);
  }

  setTopicConfigs(topic: string, configs: Record<string, string>): Promise<void> {
    return setTopicConfigs(this.conns, topic, configs);
  }

  deleteTopics(names: string[]): Promise<void> {
    return deleteTopics(this.conns, names);
  }

  describeAcls(principals?: string[]): Promise<AclBinding[]> {
    return describeAcls(this.conns, principals);
  }

  describeAclsOn(patterns: readonly AclResourcePattern[]): Promise<AclBinding[]> {
    return describeAclsOn(this.conns, patterns);
  }

  createAcls(bindings: AclBinding[]): Promise<void> {
    return createAcls(this.conns, bindings);
  }

  deleteAcls(bindings: AclBinding[]): Promise<void> {
    return deleteAcls(this.conns, bindings);
  }

  describeScramUsers(users: string[]): Promise<Map<string, ("SCRAM-SHA-256" | "SCRAM-SHA-512")[]>> {
    return describeScramUsers(this.conns, users);
  }

  upsertScramUser(user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", password: string): Promise<void> {
    return upsertScramUser(this.conns, user, mechanism, password);
  }

  upsertScramCredential(user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", credential: ScramCredential): Promise<void> {
    return upsertScramCredential(this.conns, user, mechanism, credential);
  }

  upsertScramCredentials(users: readonly ScramCredentialUpsert[]): Promise<void> {
    return upsertScramCredentials(this.conns, users);
  }

  listOffsets(topics: TopicPartitions[], spec: OffsetSpec): Promise<PerPartition<bigint | null>> {
    return listOffsets(this.conns, topics, spec);
  }

  localBytes(topics: TopicPartitions[]): Promise<PerPartition<bigint> | null> {
    return localBytes(this.conns, topics);
  }

  remoteBytes(topics: TopicPartitions[]): Promise<PerPartition<bigint> | null> {
    return remoteBytes(this.conns, topics, this.tierLog);
  }

  listGroups(): Promise<string[]> {
    return listGroups(this.conns);
  }

  describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    return describeGroups(this.conns, groupIds);
  }

  committedOffsets(requests: { groupId: string; topics: TopicFilter }[]): Promise<Map<string, Map<string, bigint>>> {
    return committedOffsets(this.conns, requests);
  }

  topicOverrides(names: string[]): Promise<Map<string, Record<string, string>>> {
    return topicOverrides(this.conns, names);
  }

  allCommittedOffsets(groupIds: string[]): Promise<Map<string, GroupCommits>> {
    return allCommittedOffsets(this.conns, groupIds);
  }

  fetchRecords(parts: FetchRequestPart[], options?: FetchOptions): Promise<Map<string, FetchedPartition>> {
    return fetchRecords(this.conns, parts, options);
  }

  offsetsForTimestamp(partitions: PartitionRef[], timestampMs: bigint): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>> {
    return offsetsForTimestamp(this.conns, partitions, timestampMs);
  }

  maxTimestamps(partitions: PartitionRef[]): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>> {
    return maxTimestamps(this.conns, partitions);
  }

  commitGroupOffsets(groupId: string, offsets: { topic: string; partition: number; offset: bigint }[]): Promise<Map<string, number>> {
    return commitGroupOffsets(this.conns, groupId, offsets);
  }

  close(): Promise<void> {
    return this.conns.close();
  }
}
