/*
 * Client quotas of service accounts (issue 33): each account's Kafka user
 * (`user` entity) carries the quota of its class in force
 * (@kappa/catalog quotasOfServiceAccounts: producer_byte_rate,
 * consumer_byte_rate, request_percentage). Applied with AlterClientQuotas
 * wherever the account's credentials are installed — the primary cluster
 * (ensureCredentials, the full reconcile) and every registered environment
 * (the environment reconciler) — then read back with DescribeClientQuotas;
 * a difference found later (someone changed the cluster, the policy changed
 * the class) is repaired the same way. An account with no live use any more
 * (its subscriptions revoked or retired, its domain's products retired) has
 * its quota removed (AlterClientQuotas with remove). Principals the worker
 * does not own are never passed here (principal-guard.ts).
 */
import { desiredQuotasOfServiceAccounts, type Db, type Tx } from "@kappa/catalog";
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
  const desired = await desiredQuotasOfServiceAccounts(db, accounts.map((a) => a.id));
  const actual = await kafka.describeUserQuotas(accounts.map((a) => a.name));
  const alterations: UserQuotaChange[] = [];
  const changes: Change[] = [];
  for (const a of accounts) {
    const q = desired.get(a.id);
    const have = actual.get(a.name) ?? {};
    if (q === undefined) continue;
    if (q === null) {
      // No live use: the quota goes with the access.
      const remove = Object.keys(have) as UserQuotaKey[];
      if (remove.length === 0) continue;
      alterations.push({ user: a.name, set: {}, remove });
      changes.push({ kind: "quota.removed", entityType: "ServiceAccount", entityId: a.id, resource: `quota:User:${a.name}`, detail: { before: have, reason: "no live use", ...(environment ? { environment } : {}) } });
      continue;
    }
    const want: Record<UserQuotaKey, number> = { producer_byte_rate: q.producerByteRate, consumer_byte_rate: q.consumerByteRate, request_percentage: q.requestPercentage };
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
  // Read back. A broker of a KRaft cluster answers from its metadata image, which follows the controller's commit a moment later: a few short retries.
  let problem: string | null = null;
  for (let attempt = 0; attempt < READ_BACK_ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, READ_BACK_PAUSE_MS * attempt));
    const after = await kafka.describeUserQuotas(alterations.map((a) => a.user));
    problem = readBackProblem(alterations, after);
    if (problem === null) return changes;
  }
  throw new Error(problem ?? "the cluster does not show the client quotas written");
}

const READ_BACK_ATTEMPTS = 6;
const READ_BACK_PAUSE_MS = 100;

function readBackProblem(alterations: readonly UserQuotaChange[], after: Map<string, Partial<Record<UserQuotaKey, number>>>): string | null {
  for (const alt of alterations) {
    const now = after.get(alt.user) ?? {};
    for (const [k, v] of Object.entries(alt.set)) {
      if (now[k as UserQuotaKey] !== v) return `the cluster does not show ${k}=${v} for User:${alt.user} after AlterClientQuotas (it shows ${now[k as UserQuotaKey] ?? "none"})`;
    }
    for (const k of alt.remove) {
      if (now[k] !== undefined) return `the cluster still shows ${k}=${now[k]} for User:${alt.user} after AlterClientQuotas removed it`;
    }
  }
  return null;
}

/**
 * The quotas of these accounts on the worker's own cluster, by account id (a
 * revoke, a retirement, a class chosen in the catalog). The ACL step before it
 * has already refused principals the worker does not own.
 */
export async function reconcileQuotasOf(ctx: { db: Db; cluster: KafkaCluster }, accountIds: readonly string[]): Promise<Map<string, Change[]>> {
  const out = new Map<string, Change[]>();
  const ids = [...new Set(accountIds)].filter((id) => id !== "");
  if (ids.length === 0) return out;
  const accounts = await ctx.db.serviceAccount.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  for (const c of await reconcileUserQuotas(ctx.db, ctx.cluster, accounts)) out.set(c.entityId, [...(out.get(c.entityId) ?? []), c]);
  return out;
}
