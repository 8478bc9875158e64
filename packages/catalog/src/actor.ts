import type { GlobalRole, MembershipRole } from "@prisma/client";
import type { Db, Tx } from "./db.ts";
import { UnauthenticatedError } from "./errors.ts";
import type { RequestContext } from "./request-context.ts";

/** The signed-in user as every action sees it: identity plus roles. */
export interface Actor {
  id: string;
  email: string;
  name: string;
  globalRole: GlobalRole;
  memberships: { domainId: string; domainSlug: string; role: MembershipRole }[];
  /** Set when the request was authenticated with an API token (see tokens/): its id and scopes. */
  token?: { id: string; name: string; scopes: string[] };
  /** The request this actor is acting through, when known; the audit log records it. */
  request?: RequestContext;
}

/**
 * Loads the acting user fresh from the database (inside the action's
 * transaction), so a role removed a second ago is no longer honoured.
 */
export async function loadActor(db: Db | Tx, userId: string): Promise<Actor> {
  const user = await db.user.findUnique({
    where: { id: userId },
    include: { memberships: { include: { domain: { select: { slug: true } } } } },
  });
  if (!user) throw new UnauthenticatedError("Your account no longer exists; sign in again.");
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    globalRole: user.globalRole,
    memberships: user.memberships.map((m) => ({ domainId: m.domainId, domainSlug: m.domain.slug, role: m.role })),
  };
}
