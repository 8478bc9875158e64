import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";
import { quotasOfServiceAccounts } from "../quotas/quota-classes.ts";

/**
 * One service account with the client quota in force (GET
 * /api/v1/service-accounts/{id}). Visible to members of the account's domain,
 * as the account list is; anyone else gets 404, so ids of other domains'
 * accounts cannot be probed. Never returns credential material.
 */
export async function getServiceAccount(db: Db, actor: Actor, serviceAccountId: string) {
  const account = await db.serviceAccount.findUnique({
    where: { id: serviceAccountId },
    select: { id: true, name: true, domainId: true, description: true, isProducer: true, secretIssuedAt: true, createdAt: true, domain: { select: { slug: true, name: true } } },
  });
  if (!account || !actor.memberships.some((m) => m.domainId === account.domainId)) throw new NotFoundError("Service account", serviceAccountId);
  const quota = (await quotasOfServiceAccounts(db, [account.id])).get(account.id);
  return { ...account, quota };
}
