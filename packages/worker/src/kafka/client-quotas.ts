/*
 * Client quotas of users over the raw protocol (KIP-546: DescribeClientQuotas /
 * AlterClientQuotas, which kafkajs cannot send). Only `user` entities (the
 * service accounts' SCRAM users) and the three keys the catalog owns are read
 * or written; other entities and keys on the cluster are left alone.
 */
import { ApiKey } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import type { UserQuotaChange, UserQuotaKey } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";

export const USER_QUOTA_KEYS: readonly UserQuotaKey[] = ["producer_byte_rate", "consumer_byte_rate", "request_percentage"];
const MATCH_EXACT = 0;
const MATCH_SPECIFIED = 2;

/** The owned quota keys set on each of these users' own `user` entity (users without any are absent). */
export async function describeUserQuotas(conns: ClusterConnections, users: readonly string[]): Promise<Map<string, Partial<Record<UserQuotaKey, number>>>> {
  const out = new Map<string, Partial<Record<UserQuotaKey, number>>>();
  if (users.length === 0) return out;
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.DescribeClientQuotas, 0, 1);
  // One user: its exact entity; several: every named-user entity in one answer, then ours.
  const only = users.length === 1 ? users[0] : undefined;
  const components = only !== undefined ? [{ entityType: "user", matchType: MATCH_EXACT, match: only }] : [{ entityType: "user", matchType: MATCH_SPECIFIED, match: null }];
  const res = await conn.request(ApiKey.DescribeClientQuotas, { components, strict: true }, version);
  if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, res.errorMessage ?? "DescribeClientQuotas failed");
  const wanted = new Set(users);
  for (const e of res.entries ?? []) {
    const name = e.entity.length === 1 && e.entity[0]?.entityType === "user" ? e.entity[0].entityName : null;
    if (name === null || name === undefined || !wanted.has(name)) continue;
    const values: Partial<Record<UserQuotaKey, number>> = {};
    for (const v of e.values) if ((USER_QUOTA_KEYS as readonly string[]).includes(v.key)) values[v.key as UserQuotaKey] = v.value;
    if (Object.keys(values).length > 0) out.set(name, values);
  }
  return out;
}

/** Sets and removes keys of users' `user` entities in one AlterClientQuotas request; the first entry the cluster refuses throws. */
export async function alterUserQuotas(conns: ClusterConnections, changes: readonly UserQuotaChange[]): Promise<void> {
  const entries = changes
    .map((c) => ({
      entity: [{ entityType: "user", entityName: c.user }],
      ops: [
        ...Object.entries(c.set).map(([key, value]) => ({ key, value, remove: false })),
        ...c.remove.map((key) => ({ key, value: 0, remove: true })),
      ],
    }))
    .filter((e) => e.ops.length > 0);
  if (entries.length === 0) return;
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.AlterClientQuotas, 0, 1);
  const res = await conn.request(ApiKey.AlterClientQuotas, { entries, validateOnly: false }, version);
  for (const r of res.entries) {
    if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? `altering the client quota of ${r.entity.map((x) => `${x.entityType}=${x.entityName}`).join(",")}`);
  }
}
