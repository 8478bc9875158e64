// Every API this broker serves. Adding an API = one file + one line here.
import type { RegisteredApi } from "../registry.ts";
import { apiVersionsApi } from "./api-versions.ts";
import { metadataApi } from "./metadata.ts";
import { createTopicsApi } from "./create-topics.ts";
import { deleteTopicsApi } from "./delete-topics.ts";
import { createPartitionsApi } from "./create-partitions.ts";
import { describeConfigsApi } from "./describe-configs.ts";
import { alterConfigsApi } from "./alter-configs.ts";
import { incrementalAlterConfigsApi } from "./incremental-alter-configs.ts";
import { produceApi } from "./produce.ts";
import { fetchApi } from "./fetch.ts";
import { listOffsetsApi } from "./list-offsets.ts";
import { findCoordinatorApi } from "./find-coordinator.ts";
import { joinGroupApi } from "./join-group.ts";
import { syncGroupApi } from "./sync-group.ts";
import { heartbeatApi } from "./heartbeat.ts";
import { leaveGroupApi } from "./leave-group.ts";
import { offsetCommitApi } from "./offset-commit.ts";
import { offsetFetchApi } from "./offset-fetch.ts";
import { describeGroupsApi } from "./describe-groups.ts";
import { listGroupsApi } from "./list-groups.ts";
import { describeClusterApi } from "./describe-cluster.ts";
import { offsetForLeaderEpochApi } from "./offset-for-leader-epoch.ts";
import { deleteGroupsApi } from "./delete-groups.ts";
import { deleteRecordsApi } from "./delete-records.ts";
import { initProducerIdApi } from "./init-producer-id.ts";
import { describeLogDirsApi } from "./describe-log-dirs.ts";
import { saslHandshakeApi } from "./sasl-handshake.ts";
import { saslAuthenticateApi } from "./sasl-authenticate.ts";
import { describeUserScramCredentialsApi } from "./describe-user-scram-credentials.ts";
import { alterUserScramCredentialsApi } from "./alter-user-scram-credentials.ts";
import { createAclsApi } from "./create-acls.ts";
import { describeAclsApi } from "./describe-acls.ts";
import { deleteAclsApi } from "./delete-acls.ts";
import { addPartitionsToTxnApi } from "./add-partitions-to-txn.ts";
import { addOffsetsToTxnApi } from "./add-offsets-to-txn.ts";
import { endTxnApi } from "./end-txn.ts";
import { txnOffsetCommitApi } from "./txn-offset-commit.ts";
import { describeTransactionsApi } from "./describe-transactions.ts";
import { listTransactionsApi } from "./list-transactions.ts";
import { describeProducersApi } from "./describe-producers.ts";

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
];
