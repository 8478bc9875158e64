import type { Db, Tx } from "./db.ts";
import { ConflictError, ValidationError } from "./errors.ts";
import { accountNamePrefix, accountNameProblem, domainSlugProblem, type ReservedName } from "./naming.ts";

/*
 * Kafka principals the catalog hands out. Every service account is a Kafka
 * user `<domain-slug>-<name>`; names the platform or the cluster treats
 * specially are reserved (ReservedPrincipal). The same rules run in the
 * catalog (an account is created, rotated, subscribed) and in the worker
 * (before it alters SCRAM credentials or ACLs), so a row that slipped past one
 * is still refused by the other.
 */

export async function loadReservedPrincipals(db: Db | Tx): Promise<ReservedName[]> {
  return db.reservedPrincipal.findMany({ select: { name: true, match: true, reason: true }, orderBy: [{ match: "asc" }, { name: "asc" }] });
}

/** Why this existing or proposed account may not be used as a Kafka principal, or null. */
export async function accountProblem(
  db: Db | Tx,
  account: { name: string; domainId: string; isProducer?: boolean },
  extraReserved: readonly ReservedName[] = [],
  newName = false,
): Promise<string | null> {
  const [domains, reserved] = await Promise.all([db.domain.findMany({ select: { id: true, slug: true } }), loadReservedPrincipals(db)]);
  const own = domains.find((d) => d.id === account.domainId);
  if (!own) return `The account's domain ${account.domainId} does not exist.`;
  return accountNameProblem(account.name, {
    domainSlug: own.slug,
    otherDomainSlugs: domains.filter((d) => d.id !== own.id).map((d) => d.slug),
    reserved: [...reserved, ...extraReserved],
    isProducer: account.isProducer ?? false,
    newName,
  });
}

/** Refuses a new account name with a 400 on the `name` field. */
export async function assertAccountNameAllowed(tx: Tx, name: string, domainId: string): Promise<void> {
  const problem = await accountProblem(tx, { name, domainId, isProducer: false }, [], true);
  if (problem) throw new ValidationError(problem, { name: [problem] });
}

/** Refuses an action on an existing account whose principal is reserved or outside its domain's namespace. */
export async function assertAccountUsable(tx: Tx, account: { name: string; domainId: string; isProducer: boolean }): Promise<void> {
  const problem = await accountProblem(tx, account);
  if (problem) throw new ConflictError(`The platform does not manage the principal User:${account.name}: ${problem}`, "PRINCIPAL_NOT_MANAGED");
}

/**
 * For whoever creates or renames domains: a slug under a reserved prefix, or
 * one whose namespace `<slug>-` already holds another domain's accounts, is
 * refused (those accounts would appear to belong to the new domain).
 */
export async function assertDomainSlugAvailable(tx: Tx, slug: string, domainId?: string): Promise<void> {
  const problem = domainSlugProblem(slug, await loadReservedPrincipals(tx));
  if (problem) throw new ValidationError(problem, { slug: [problem] });
  const prefix = accountNamePrefix(slug);
  const squatters = await tx.serviceAccount.findMany({
    where: { name: { startsWith: prefix }, ...(domainId ? { domainId: { not: domainId } } : {}) },
    select: { name: true },
    take: 5,
  });
  if (squatters.length > 0) {
    const message = `Accounts of other domains already use the names "${prefix}…" (${squatters.map((s) => s.name).join(", ")}); choose another slug.`;
    throw new ValidationError(message, { slug: [message] });
  }
}

/**
 * Called by the worker at start: records its own admin user and the cluster's
 * super.users as reserved, so the portal (which holds no Kafka credentials)
 * learns them. Rows of source "worker" are only ever added, never removed
 * automatically: a super user dropped from the cluster stays reserved until an
 * admin removes it.
 */
export async function recordWorkerPrincipals(db: Db, principals: { adminUser: string | null; superUsers: readonly string[] }): Promise<void> {
  const rows: { name: string; reason: string }[] = [];
  if (principals.adminUser) rows.push({ name: principals.adminUser, reason: "The worker's Kafka admin user (KAFKA_ADMIN_USER)" });
  for (const p of principals.superUsers) {
    const name = p.startsWith("User:") ? p.slice("User:".length) : p;
    if (name && name !== principals.adminUser) rows.push({ name, reason: "A super user of the cluster (super.users)" });
  }
  for (const row of rows) {
    await db.reservedPrincipal.upsert({
      where: { name_match: { name: row.name, match: "EXACT" } },
      create: { name: row.name, match: "EXACT", reason: row.reason, source: "worker" },
      update: {},
    });
  }
}
