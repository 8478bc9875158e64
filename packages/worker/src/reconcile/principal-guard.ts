/*
 * Defence in depth for findings 1–2 of issue 8: before the worker changes a
 * principal's SCRAM credentials or ACLs it checks, against the catalog as it
 * is now, that the principal is one it owns — a service account inside its
 * domain's namespace, not reserved — and that its own admin user and the
 * cluster's super users (known to this process, whatever the catalog says) are
 * never among them. The catalog refuses such accounts already; this catches a
 * row that got past it (an old row, a direct database write, a bug).
 */
import { accountNameProblem, loadReservedPrincipals, type Db, type ReservedName, type Tx } from "@kappa/catalog";
import { PrincipalNotOwnedError } from "../errors.ts";

export interface GuardedAccount {
  id: string;
  name: string;
  domainId: string;
  isProducer: boolean;
}

/** Principals this worker knows are the platform's: its admin user and the cluster's super users. */
export function platformPrincipals(adminUser: string | null, superUsers: readonly string[]): ReservedName[] {
  const out: ReservedName[] = [];
  if (adminUser) out.push({ name: adminUser, match: "EXACT", reason: "the worker's own Kafka admin user" });
  for (const s of superUsers) out.push({ name: s.startsWith("User:") ? s.slice(5) : s, match: "EXACT", reason: "a super user of the cluster" });
  return out;
}

/** Loads the rules once (domains, reserved names) and returns a checker for many accounts. */
export async function loadPrincipalGuard(db: Db | Tx, platform: readonly ReservedName[]): Promise<(account: GuardedAccount) => string | null> {
  const [domains, reserved] = await Promise.all([db.domain.findMany({ select: { id: true, slug: true } }), loadReservedPrincipals(db)]);
  const all = [...reserved, ...platform];
  return (account) => {
    const own = domains.find((d) => d.id === account.domainId);
    if (!own) return `its domain ${account.domainId} does not exist`;
    return accountNameProblem(account.name, {
      domainSlug: own.slug,
      otherDomainSlugs: domains.filter((d) => d.id !== own.id).map((d) => d.slug),
      reserved: all,
      isProducer: account.isProducer,
    });
  };
}

export function refusal(account: GuardedAccount, problem: string): PrincipalNotOwnedError {
  return new PrincipalNotOwnedError(
    `Refusing to alter SCRAM credentials or ACLs of User:${account.name}: the worker does not own this principal (${problem}). Rename or remove the service account; nothing was changed on the cluster.`,
  );
}

/** Throws PrincipalNotOwnedError unless the worker owns the account's principal. */
export async function assertOwnedPrincipal(db: Db | Tx, platform: readonly ReservedName[], account: GuardedAccount): Promise<void> {
  const problem = (await loadPrincipalGuard(db, platform))(account);
  if (problem) throw refusal(account, problem);
}
