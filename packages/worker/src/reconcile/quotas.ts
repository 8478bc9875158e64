/*
 * Client quotas of service accounts (issue 33): each account's Kafka user
 * (`user` entity) carries the quota of its class in force
 * (@kappa/catalog quotasOfServiceAccounts: producer_byte_rate,
 * consumer_byte_rate, request_percentage). Applied with AlterClientQuotas
 * wherever the account's credentials are installed — the primary cluster
 * (ensureCredentials, the full reconcile) and every registered environment
 * (the environment reconciler) — then read back with DescribeClientQuotas;
 * a difference found later (someone changed the cluster, the policy changed
 * the class) is repaired the same way. Principals the worker does not own are
 * never passed here (principal-guard.ts).
 */
import { quotasOfServiceAccounts, type Db, type Tx } from "@kappa/catalog";
import type { KafkaCluster, UserQuotaChange, UserQuotaKey } from "../kafka/cluster.ts";
import { auditAsWorker, type Change } from "./entities.ts";

export interface QuotaAccount {
  id: string;
  name: string;
}

/**
 * Brings the users of these accounts to their class's quota on one cluster;
 * answers one change per account whose quota was set or corrected. Throws if
 * the cluster refuses, or if reading back does not show what was written.
 */
export async function reconcileUserQuotas(db: Db | Tx, kafka: KafkaCluster, accounts: readonly QuotaAccount[], environment: string | null = null): Promise<Change[]> {
  if (accounts.length === 0) return [];
  const desired = await quotasOfServiceAccounts(db, accounts.map((a) => a.id));
  const actual = await kafka.describeUserQuotas(accounts.map((a) => a.name));
  const alterations: UserQuotaChange[] = [];
  const changes: Change[] = [];
  for (const a of accounts) {
    const q = desired.get(a.id);
    if (!q) continue;
    const want: Record<UserQuotaKey, number> = { producer_byte_rate: q.producerByteRate, consumer_byte_rate: q.consumerByteRate, request_percentage: q.requestPercentage };
    const have = actual.get(a.name) ?? {};
    const set: Partial<Record<UserQuotaKey, number>> = {};
    for (const [k, v] of Object.entries(want) as Array<[UserQuotaKey, number]>) if (have[k] !== v) set[k] = v;
    if (Object.keys(set).length === 0) continue;
    alterations.push({ user: a.name, set, remove: [] });
    changes.push({
      kind: Object.keys(have).length === 0 ? "quota.set" : "quota.corrected",
      entityType: "ServiceAccount",
      entityId: a.id,
      resource: `quota:User:${a.name}`,
      detail: { class: q.class, ...want, ...(Object.keys(have).length > 0 ? { before: have } : {}), ...(environment ? { environment } : {}) },
    });
  }
  if (alterations.length === 0) return [];
  await kafka.alterUserQuotas(alterations);
  for (const c of changes) await auditAsWorker(db, `serviceAccount.${c.kind}`, "ServiceAccount", c.entityId, { principal: `User:${accounts.find((a) => a.id === c.entityId)?.name ?? ""}`, ...c.detail });
  const after = await kafka.describeUserQuotas(alterations.map((a) => a.user));
  for (const alt of alterations) {
    const now = after.get(alt.user) ?? {};
    for (const [k, v] of Object.entries(alt.set)) {
      if (now[k as UserQuotaKey] !== v) throw new Error(`the cluster does not show ${k}=${v} for User:${alt.user} after AlterClientQuotas (it shows ${now[k as UserQuotaKey] ?? "none"})`);
    }
  }
  return changes;
}
