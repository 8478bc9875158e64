/*
 * Subscribers' access on a registered cluster. A subscription whose
 * `environment` names this cluster is granted here, not through provisioning
 * tasks (those act on the primary cluster only): while it is APPROVED or
 * ACTIVE and the product's deployment on this environment is live, the
 * account gets exactly what it gets on the primary cluster (consumerBindings:
 * READ and DESCRIBE on the topic, READ on its group prefix); once it is
 * revoked, rejected or the deployment is gone, those bindings are deleted.
 * Only bindings the catalog would have created are ever deleted (the
 * consumer shapes on this environment's promoted topics and the account's
 * own group prefix), so an operator's other grants stay. Every step is
 * idempotent: the desired state is computed from the catalog each cycle.
 */
import type { Cluster } from "@prisma/client";
import { consumerGroupPrefix, type Db } from "@kappa/catalog";
import type { AclBinding, KafkaCluster } from "../kafka/cluster.ts";
import { errorMessage, type Logger } from "../log.ts";
import { aclKey, consumerBindings, GRANTED_SUBSCRIPTION_STATUSES, LIVE_PRODUCT_STATUSES } from "../reconcile/diff.ts";
import { auditAsWorker } from "../reconcile/entities.ts";
import { loadPrincipalGuard, platformPrincipals } from "../reconcile/principal-guard.ts";

export interface EnvironmentGrantRun {
  granted: number;
  removed: number;
  activated: number;
  refused: string[];
}

const GRANTED = new Set<string>(GRANTED_SUBSCRIPTION_STATUSES);
const LIVE = new Set<string>(LIVE_PRODUCT_STATUSES);

/**
 * Makes the consumer ACLs on `cluster` match the catalog's subscriptions in
 * that environment. `liveTopics` maps product id → topic of the deployments
 * provisioned on this cluster in this cycle (only those may be read).
 * A granted subscription turns ACTIVE only when its account is in
 * `credentialsReady` (its current credential is on the cluster): ACTIVE means
 * the consumer can connect, so an account whose credential could not be
 * installed this cycle stays APPROVED until a later cycle installs it.
 */
export async function reconcileEnvironmentGrants(
  db: Db,
  kafka: KafkaCluster,
  cluster: Cluster,
  liveTopics: ReadonlyMap<string, string>,
  allTopics: readonly string[],
  credentialsReady: ReadonlySet<string>,
  log: Logger,
): Promise<EnvironmentGrantRun> {
  const run: EnvironmentGrantRun = { granted: 0, removed: 0, activated: 0, refused: [] };
  const subscriptions = await db.subscription.findMany({
    where: { environment: cluster.environment },
    select: { id: true, status: true, productId: true, product: { select: { status: true } }, serviceAccount: { select: { id: true, name: true, domainId: true, isProducer: true } } },
  });
  if (subscriptions.length === 0) return run;
  const guard = await loadPrincipalGuard(db, platformPrincipals(cluster.adminUser, []));
  const byAccount = new Map<string, { account: (typeof subscriptions)[number]["serviceAccount"]; topics: Set<string>; grantedIds: string[] }>();
  for (const s of subscriptions) {
    const entry = byAccount.get(s.serviceAccount.id) ?? { account: s.serviceAccount, topics: new Set<string>(), grantedIds: [] };
    byAccount.set(s.serviceAccount.id, entry);
    const topic = liveTopics.get(s.productId);
    if (GRANTED.has(s.status) && LIVE.has(s.product.status) && topic !== undefined) {
      entry.topics.add(topic);
      if (s.status === "APPROVED") entry.grantedIds.push(s.id);
    }
  }
  const principals = [...byAccount.values()].map((e) => `User:${e.account.name}`);
  const actual = await kafka.describeAcls(principals);
  for (const { account, topics, grantedIds } of byAccount.values()) {
    // As on the primary cluster: a principal the platform does not own (this cluster's admin, a reserved name) is never touched.
    const problem = guard(account);
    if (problem) {
      run.refused.push(`${account.name}: ${problem}`);
      log.warn("refused to grant on a registered cluster", { environment: cluster.environment, account: account.name, problem });
      continue;
    }
    const principal = `User:${account.name}`;
    const prefix = consumerGroupPrefix(account.name);
    const desired = consumerBindings(principal, prefix, [...topics].sort());
    const wanted = new Set(desired.map(aclKey));
    const have = actual.filter((b) => b.principal === principal);
    const haveKeys = new Set(have.map(aclKey));
    const missing = desired.filter((b) => !haveKeys.has(aclKey(b)));
    // What the catalog may take away: the consumer shapes on this environment's catalog topics and the account's prefix.
    const ours = new Set(consumerBindings(principal, prefix, allTopics).map(aclKey));
    const extra: AclBinding[] = have.filter((b) => ours.has(aclKey(b)) && !wanted.has(aclKey(b)));
    try {
      if (missing.length > 0) await kafka.createAcls(missing);
      if (extra.length > 0) await kafka.deleteAcls(extra);
    } catch (error) {
      run.refused.push(`${account.name}: ${errorMessage(error)}`);
      log.warn("could not change ACLs on a registered cluster", { environment: cluster.environment, account: account.name, error: errorMessage(error) });
      continue;
    }
    run.granted += missing.length;
    run.removed += extra.length;
    if (missing.length > 0 || extra.length > 0) {
      await auditAsWorker(db, "subscription.environment-acls", "ServiceAccount", account.id, {
        environment: cluster.environment,
        principal,
        created: missing.map(describeBinding),
        deleted: extra.map(describeBinding),
      });
    }
    if (credentialsReady.has(account.id)) run.activated += await activate(db, grantedIds, cluster.environment);
  }
  return run;
}

/** A binding as the audit shows it (aclKey's separators are not valid in a JSON column). */
function describeBinding(b: AclBinding): string {
  return `${b.permission} ${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`;
}

/** APPROVED → ACTIVE once the bindings exist (a second worker finds them ACTIVE already), audited like the primary's activation. */
async function activate(db: Db, ids: readonly string[], environment: string): Promise<number> {
  let moved = 0;
  for (const id of ids) {
    await db.$transaction(async (tx) => {
      const result = await tx.subscription.updateMany({ where: { id, status: "APPROVED", environment }, data: { status: "ACTIVE" } });
      if (result.count === 0) return;
      moved++;
      await auditAsWorker(tx, "subscription.activated", "Subscription", id, { from: "APPROVED", to: "ACTIVE", environment });
    });
  }
  return moved;
}
