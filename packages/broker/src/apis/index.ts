// Every API this broker serves. Adding an API = one file + one line here.
import type { RegisteredApi } from "../registry.ts";
import { addOffsetsToTxnApi } from "./add-offsets-to-txn.ts";
import { addPartitionsToTxnApi } from "./add-partitions-to-txn.ts";
import { alterClientQuotasApi } from "./alter-client-quotas.ts";
import { alterConfigsApi } from "./alter-configs.ts";
import { alterUserScramCredentialsApi } from "./alter-user-scram-credentials.ts";
import { apiVersionsApi } from "./api-versions.ts";
import { consumerGroupDescribeApi } from "./consumer-group-describe.ts";
import { consumerGroupHeartbeatApi } from "./consumer-group-heartbeat.ts";
import { createAclsApi } from "./create-acls.ts";
import { createPartitionsApi } from "./create-partitions.ts";
import { createTopicsApi } from "./create-topics.ts";
import { deleteAclsApi } from "./delete-acls.ts";
import { deleteGroupsApi } from "./delete-groups.ts";
import { deleteRecordsApi } from "./delete-records.ts";
import { deleteTopicsApi } from "./delete-topics.ts";
import { describeAclsApi } from "./describe-acls.ts";
import { describeClientQuotasApi } from "./describe-client-quotas.ts";
import { describeClusterApi } from "./describe-cluster.ts";
import { describeConfigsApi } from "./describe-configs.ts";
import { describeGroupsApi } from "./describe-groups.ts";
import { describeLogDirsApi } from "./describe-log-dirs.ts";
import { describeProducersApi } from "./describe-producers.ts";
import { describeTopicPartitionsApi } from "./describe-topic-partitions.ts";
import { describeTransactionsApi } from "./describe-transactions.ts";
import { describeUserScramCredentialsApi } from "./describe-user-scram-credentials.ts";
import { endTxnApi } from "./end-txn.ts";
import { fetchApi } from "./fetch.ts";
import { findCoordinatorApi } from "./find-coordinator.ts";
import { heartbeatApi } from "./heartbeat.ts";
import { incrementalAlterConfigsApi } from "./incremental-alter-configs.ts";
import { initProducerIdApi } from "./init-producer-id.ts";
import { joinGroupApi } from "./join-group.ts";
import { leaveGroupApi } from "./leave-group.ts";
import { listGroupsApi } from "./list-groups.ts";
import { listOffsetsApi } from "./list-offsets.ts";
import { listTransactionsApi } from "./list-transactions.ts";
import { metadataApi } from "./metadata.ts";
import { offsetCommitApi } from "./offset-commit.ts";
import { offsetFetchApi } from "./offset-fetch.ts";
import { offsetForLeaderEpochApi } from "./offset-for-leader-epoch.ts";
import { produceApi } from "./produce.ts";
import { saslAuthenticateApi } from "./sasl-authenticate.ts";
import { saslHandshakeApi } from "./sasl-handshake.ts";
import { syncGroupApi } from "./sync-group.ts";
import { txnOffsetCommitApi } from "./txn-offset-commit.ts";

export const CORE_APIS: readonly RegisteredApi[] = [
  produceApi,
  fetchApi,
  listOffsetsApi,
  metadataApi,
  offsetCommitApi,
  offsetFetchApi,
  findCoordinatorApi,
  joinGroupApi,
  heartbeatApi,
  leaveGroupApi,
  syncGroupApi,
  describeGroupsApi,
  listGroupsApi,
  describeClusterApi,
  offsetForLeaderEpochApi,
  apiVersionsApi,
  createTopicsApi,
  deleteTopicsApi,
  deleteRecordsApi,
  initProducerIdApi,
  describeConfigsApi,
  alterConfigsApi,
  createPartitionsApi,
  deleteGroupsApi,
  incrementalAlterConfigsApi,
  describeLogDirsApi,
  saslHandshakeApi,
  saslAuthenticateApi,
  describeUserScramCredentialsApi,
  alterUserScramCredentialsApi,
  describeClientQuotasApi,
  alterClientQuotasApi,
  describeAclsApi,
  createAclsApi,
  deleteAclsApi,
  addPartitionsToTxnApi,
  addOffsetsToTxnApi,
  endTxnApi,
  txnOffsetCommitApi,
  describeTransactionsApi,
  listTransactionsApi,
  describeProducersApi,
  describeTopicPartitionsApi,
  consumerGroupHeartbeatApi,
  consumerGroupDescribeApi,
];
