// AlterUserScramCredentials (key 51), version 0 (flexible).
//
// Request:  deletions [name COMPACT_STRING, mechanism INT8],
//           upsertions [name COMPACT_STRING, mechanism INT8, iterations INT32, salt COMPACT_BYTES, salted_password COMPACT_BYTES], TAG_BUFFER
// Response: throttle_time_ms INT32, results [user COMPACT_STRING, error_code INT16, error_message COMPACT_NULLABLE_STRING], TAG_BUFFER
//
// Validation and result order follow Kafka's ScramControlManager.alterCredentials:
//  - a user named twice anywhere in the request (even for different mechanisms):
//    DUPLICATE_RESOURCE for that user, and none of its changes apply;
//  - empty user name or iterations outside 4096..16384: UNACCEPTABLE_CREDENTIAL;
//  - unknown mechanism: UNSUPPORTED_SASL_MECHANISM;
//  - deleting a credential that does not exist: RESOURCE_NOT_FOUND;
//  - results: successful deletions, successful upsertions, then the failures.
// The salted password is turned into StoredKey/ServerKey here and dropped; all
// accepted changes are written as one durable step before the response.
// Needs ALTER on CLUSTER, else every user gets CLUSTER_AUTHORIZATION_FAILED.
import { ApiKey, ErrorCode, type AlterUserScramCredentialsRequest, type AlterUserScramCredentialsResponse, type DeepPartial } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import type { CredentialChange } from "../security/scram/credential-store.ts";
import { MAX_ITERATIONS, MIN_ITERATIONS, credentialFromSaltedPassword, scramMechanismByType } from "../security/scram/scram.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

type Result = DeepPartial<AlterUserScramCredentialsResponse["results"][number]>;
interface ApiError {
  code: number;
  message: string;
}

const DUPLICATE: ApiError = { code: ErrorCode.DUPLICATE_RESOURCE, message: "A user credential cannot be altered twice in the same request" };

function nameAndMechanismProblem(name: string, mechanism: number): ApiError | null {
  if (name === "") return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: "Username must not be empty" };
  if (!scramMechanismByType(mechanism)) return { code: ErrorCode.UNSUPPORTED_SASL_MECHANISM, message: "Unknown SCRAM mechanism" };
  return null;
}

export const alterUserScramCredentialsApi = defineApi<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse>({
  apiKey: ApiKey.AlterUserScramCredentials,
  name: "AlterUserScramCredentials",
  advertised: { min: 0, max: 0 },
  implemented: { min: 0, max: 0 },
  async handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "ALTER", CLUSTER_RESOURCE)) {
      const users = [...new Set([...req.deletions.map((d) => d.name), ...req.upsertions.map((u) => u.name)])];
      return {
        throttleTimeMs: 0,
        results: users.map((user) => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: "Cluster authorization failed." })),
      };
    }
    const store = b.sasl.store;
    const deletions = new Map<string, (typeof req.deletions)[number]>();
    const upsertions = new Map<string, (typeof req.upsertions)[number]>();
    const errors = new Map<string, ApiError>();
    for (const d of req.deletions) {
      if (errors.has(d.name)) continue;
      if (deletions.delete(d.name)) {
        errors.set(d.name, DUPLICATE);
        continue;
      }
      const mech = scramMechanismByType(d.mechanism);
      const problem =
        nameAndMechanismProblem(d.name, d.mechanism) ??
        (mech && !store.get(d.name, mech) ? { code: ErrorCode.RESOURCE_NOT_FOUND, message: "Attempt to delete a user credential that does not exist" } : null);
      if (problem) errors.set(d.name, problem);
      else deletions.set(d.name, d);
    }
    for (const u of req.upsertions) {
      if (errors.has(u.name)) continue;
      if (deletions.delete(u.name) || upsertions.delete(u.name)) {
        errors.set(u.name, DUPLICATE);
        continue;
      }
      let problem = nameAndMechanismProblem(u.name, u.mechanism);
      if (!problem && u.iterations < MIN_ITERATIONS) problem = { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: "Too few iterations" };
      if (!problem && u.iterations > MAX_ITERATIONS) problem = { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: "Too many iterations" };
      if (problem) errors.set(u.name, problem);
      else upsertions.set(u.name, u);
    }
    const changes: CredentialChange[] = [];
    const results: Result[] = [];
    for (const d of deletions.values()) {
      const mechanism = scramMechanismByType(d.mechanism);
      if (!mechanism) continue; // validated above
      changes.push({ kind: "delete", user: d.name, mechanism });
      results.push({ user: d.name, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    for (const u of upsertions.values()) {
      const mechanism = scramMechanismByType(u.mechanism);
      if (!mechanism) continue; // validated above
      changes.push({ kind: "upsert", user: u.name, mechanism, credential: credentialFromSaltedPassword(mechanism, u.salt, u.iterations, u.saltedPassword) });
      results.push({ user: u.name, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    for (const [user, e] of errors) results.push({ user, errorCode: e.code, errorMessage: e.message });
    if (changes.length > 0) {
      await store.apply(changes);
      b.logger.info(`SCRAM credentials altered by ${ctx.session.principal}: ${changes.map((c) => `${c.kind} ${c.user} ${c.mechanism.name}`).join(", ")}`);
    }
    return { throttleTimeMs: 0, results };
  },
});
