/*
 * SCRAM users over the raw protocol (KIP-554: Describe/AlterUserScramCredentials,
 * which kafkajs cannot send). The broker receives the salted password, never
 * the password itself.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import { SCRAM_MECHANISM_CODE, scramUpsertion } from "../scram.ts";
import type { ScramCredential } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";

export async function describeScramUsers(conns: ClusterConnections, users: string[]): Promise<Map<string, ("SCRAM-SHA-256" | "SCRAM-SHA-512")[]>> {
  const out = new Map<string, ("SCRAM-SHA-256" | "SCRAM-SHA-512")[]>();
  if (users.length === 0) return out;
  const conn = await conns.any();
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

export async function upsertScramUser(conns: ClusterConnections, user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", password: string): Promise<void> {
  return upsertScramCredential(conns, user, mechanism, scramUpsertion(mechanism, password));
}

export async function upsertScramCredential(conns: ClusterConnections, user: string, mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", credential: ScramCredential): Promise<void> {
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.AlterUserScramCredentials, 0, 0);
  const { salt, saltedPassword, iterations } = credential;
  const res = await conn.request(
    ApiKey.AlterUserScramCredentials,
    { deletions: [], upsertions: [{ name: user, mechanism: SCRAM_MECHANISM_CODE[mechanism], iterations, salt, saltedPassword }] },
    version,
  );
  for (const r of res.results) {
    if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? `creating SCRAM user ${user}`);
  }
}
