/*
 * SCRAM credentials on a registered cluster. Every service account that needs
 * access there — the producer of a product provisioned there, the accounts of
 * granted subscriptions in that environment — gets the same credential it has
 * on the primary cluster: the worker installs the account's sealed salted
 * credential (scram-credential.ts), so the password picked up once in the
 * portal works in every environment. EnvironmentCredential remembers which
 * issue was installed; a rotation (a later secretIssuedAt) or a user deleted
 * on the cluster is installed again. An account that never had credentials
 * (it subscribes only outside the primary) is issued them here, exactly as the
 * primary would: hash, one-time pickup, sealed credential, audited.
 */
import type { Cluster } from "@prisma/client";
import { encryptSecret, generatePassword, hashPassword, type Db } from "@kappa/catalog";
import type { KafkaCluster } from "../kafka/cluster.ts";
import { errorMessage, type Logger } from "../log.ts";
import { auditAsWorker, CREDENTIAL_MECHANISM } from "../reconcile/entities.ts";
import { loadPrincipalGuard, platformPrincipals } from "../reconcile/principal-guard.ts";
import { reconcileUserQuotas } from "../reconcile/quotas.ts";
import { openScramCredential, sealedScramCredential } from "../reconcile/scram-credential.ts";

export interface EnvironmentCredentialRun {
  installed: number;
  issued: number;
  /** Accounts whose client quota was set or corrected here. */
  quotas: number;
  refused: string[];
  /** Accounts whose current credential is on the cluster after this run (only their subscriptions may turn ACTIVE). */
  ready: Set<string>;
}

const ACCOUNT = { id: true, name: true, domainId: true, isProducer: true, secretHash: true, secretIssuedAt: true, scramSealed: true } as const;

export async function reconcileEnvironmentCredentials(db: Db, kafka: KafkaCluster, cluster: Cluster, accountIds: ReadonlySet<string>, secretsKey: Buffer, log: Logger): Promise<EnvironmentCredentialRun> {
  const run: EnvironmentCredentialRun = { installed: 0, issued: 0, quotas: 0, refused: [], ready: new Set() };
  if (accountIds.size === 0) return run;
  const [accounts, installed, guard] = await Promise.all([
    db.serviceAccount.findMany({ where: { id: { in: [...accountIds] } }, select: ACCOUNT }),
    db.environmentCredential.findMany({ where: { environment: cluster.environment, serviceAccountId: { in: [...accountIds] } } }),
    loadPrincipalGuard(db, platformPrincipals(cluster.adminUser, [])),
  ]);
  const users = await kafka.describeScramUsers(accounts.map((a) => a.name));
  const installedAt = new Map(installed.map((r) => [r.serviceAccountId, r.issuedAt]));
  for (const listed of accounts) {
    let account = listed;
    const problem = guard(account);
    if (problem) {
      run.refused.push(`${account.name}: ${problem}`);
      continue;
    }
    try {
      if (account.secretHash === null) {
        if (await issueHere(db, kafka, cluster, account.id, secretsKey)) {
          run.issued++;
          run.ready.add(account.id);
          continue;
        }
        // Issued meanwhile by someone else (the primary's grant, another worker): install that issue below.
        account = await db.serviceAccount.findUniqueOrThrow({ where: { id: account.id }, select: ACCOUNT });
      }
      const present = users.get(account.name)?.includes(CREDENTIAL_MECHANISM) ?? false;
      const current = installedAt.get(account.id);
      if (present && current !== undefined && account.secretIssuedAt !== null && current.getTime() >= account.secretIssuedAt.getTime()) {
        run.ready.add(account.id);
        continue;
      }
      if (account.scramSealed === null || account.secretIssuedAt === null) {
        // Issued before credentials were carried to other environments: only a new issue has the sealed credential.
        throw new Error(`its credentials were issued before they could be carried to ${cluster.environment}; rotate them once`);
      }
      await kafka.upsertScramCredential(account.name, CREDENTIAL_MECHANISM, openScramCredential(secretsKey, account.id, account.scramSealed));
      await recordInstalled(db, account.id, cluster.environment, account.secretIssuedAt);
      await auditAsWorker(db, "serviceAccount.credentials.installed", "ServiceAccount", account.id, {
        environment: cluster.environment,
        principal: `User:${account.name}`,
        mechanism: CREDENTIAL_MECHANISM,
        issuedAt: account.secretIssuedAt.toISOString(),
        reason: current === undefined ? "first install" : present ? "rotated" : "user missing on the cluster",
      });
      run.installed++;
      run.ready.add(account.id);
    } catch (error) {
      run.refused.push(`${account.name}: ${errorMessage(error)}`);
      log.warn("could not install credentials on a registered cluster", { environment: cluster.environment, account: account.name, error: errorMessage(error) });
    }
  }
  // The quota class goes with the user on every environment (reconcile/quotas.ts).
  const ready = accounts.filter((a) => run.ready.has(a.id));
  try {
    run.quotas = (await reconcileUserQuotas(db, kafka, ready, cluster.environment)).length;
  } catch (error) {
    run.refused.push(`client quotas: ${errorMessage(error)}`);
    log.warn("could not apply client quotas on a registered cluster", { environment: cluster.environment, error: errorMessage(error) });
  }
  return run;
}

async function recordInstalled(db: Db, serviceAccountId: string, environment: string, issuedAt: Date): Promise<void> {
  await db.environmentCredential.upsert({
    where: { serviceAccountId_environment: { serviceAccountId, environment } },
    create: { serviceAccountId, environment, issuedAt },
    update: { issuedAt, installedAt: new Date() },
  });
}

/**
 * First credentials of an account, issued on this cluster: the account row is
 * locked and read again (the primary may be issuing at the same moment); the
 * broker is written before the catalog, as on the primary cluster.
 */
async function issueHere(db: Db, kafka: KafkaCluster, cluster: Cluster, accountId: string, secretsKey: Buffer): Promise<boolean> {
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM "ServiceAccount" WHERE id = ${accountId} FOR UPDATE`;
      const account = await tx.serviceAccount.findUniqueOrThrow({ where: { id: accountId }, select: ACCOUNT });
      if (account.secretHash !== null) return false;
      const password = generatePassword();
      const { credential, sealed } = sealedScramCredential(secretsKey, account.id, password);
      await kafka.upsertScramCredential(account.name, CREDENTIAL_MECHANISM, credential);
      const issuedAt = new Date();
      await tx.serviceAccount.update({
        where: { id: account.id },
        data: { secretHash: await hashPassword(password), secretIssuedAt: issuedAt, secretCiphertext: encryptSecret(secretsKey, password, account.id), scramSealed: sealed },
      });
      await tx.environmentCredential.upsert({
        where: { serviceAccountId_environment: { serviceAccountId: account.id, environment: cluster.environment } },
        create: { serviceAccountId: account.id, environment: cluster.environment, issuedAt },
        update: { issuedAt, installedAt: new Date() },
      });
      await auditAsWorker(tx, "serviceAccount.credentials.issued", "ServiceAccount", account.id, { mechanism: CREDENTIAL_MECHANISM, principal: `User:${account.name}`, reason: "first issue", environment: cluster.environment });
      return true;
    },
    { isolationLevel: "ReadCommitted", timeout: 60_000, maxWait: 15_000 },
  );
}
