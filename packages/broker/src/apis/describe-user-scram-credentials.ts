// DescribeUserScramCredentials (key 50), version 0 (flexible).
//
// Request:  users [name COMPACT_STRING] (nullable; null or empty = all users), TAG_BUFFER
// Response: throttle_time_ms INT32, error_code INT16, error_message COMPACT_NULLABLE_STRING,
//           results [user, error_code, error_message, credential_infos [mechanism INT8, iterations INT32]], TAG_BUFFER
//
// Kafka (ScramImage.describe): a user listed twice gets DUPLICATE_RESOURCE, a user
// without credentials RESOURCE_NOT_FOUND; salts and keys are never returned.
// Needs DESCRIBE on CLUSTER, else a top-level CLUSTER_AUTHORIZATION_FAILED (and one nameless result per named user).
import { ApiKey, ErrorCode, type DeepPartial, type DescribeUserScramCredentialsRequest, type DescribeUserScramCredentialsResponse } from "@kappa/kafka-protocol";
import { javaHashMapOrder } from "../java-hash-order.ts";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

type Result = DeepPartial<DescribeUserScramCredentialsResponse["results"][number]>;

export const describeUserScramCredentialsApi = defineApi<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse>({
  apiKey: ApiKey.DescribeUserScramCredentials,
  name: "DescribeUserScramCredentials",
  advertised: { min: 0, max: 0 },
  implemented: { min: 0, max: 0 },
  handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "DESCRIBE", CLUSTER_RESOURCE)) {
      // Kafka's error response (DescribeUserScramCredentialsRequest.getErrorResponse): one result per named user,
      // without its name. (With users null Kafka 4.1 sends nothing at all: its error response iterates the null list.)
      const results = (req.users ?? []).map((): Result => ({ user: "", errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, credentialInfos: [] }));
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, results };
    }
    const store = b.sasl.store;
    // user → listed more than once
    const wanted = new Map<string, boolean>();
    if (req.users === null || req.users.length === 0) {
      for (const u of store.userNames()) wanted.set(u, false);
    } else {
      for (const { name } of req.users) wanted.set(name, wanted.has(name));
    }
    const results: Result[] = [];
    // Kafka collects the users in a HashMap and answers in its iteration order.
    for (const user of javaHashMapOrder(wanted.keys())) {
      const duplicate = wanted.get(user) === true;
      if (duplicate) {
        results.push({ user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] });
        continue;
      }
      const infos = store.describe(user);
      if (infos.length === 0) {
        results.push({ user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] });
        continue;
      }
      results.push({ user, errorCode: ErrorCode.NONE, errorMessage: "", credentialInfos: infos.map((i) => ({ mechanism: i.mechanism.type, iterations: i.iterations })) });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
});
