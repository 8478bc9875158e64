import { Prisma, type GlobalRole, type MembershipRole } from "@prisma/client";
import type { Db, Tx } from "./db.ts";
import { UnauthenticatedError } from "./errors.ts";
import { readRows } from "./read-rows.ts";
import type { RequestContext } from "./request-context.ts";

/** The signed-in user as every action sees it: identity plus roles. */
export interface Actor {
  id: string;
  email: string;
  name: string;
  globalRole: GlobalRole;
  memberships: { domainId: string; domainSlug: string; role: MembershipRole }[];
  /** The user's session version (User.sessionVersion): a session cookie carrying another one is refused. */
  sessionVersion?: number;
  /** Set when the request was authenticated with an API token (see tokens/): its id and scopes. */
  token?: { id: string; name: string; scopes: string[] };
  /** The request this actor is acting through, when known; the audit log records it. */
  request?: RequestContext;
}

interface ActorRow {
  id: string;
  email: string;
  name: string;
  globalRole: GlobalRole;
  memberships: { domainId: string; domainSlug: string; role: MembershipRole }[] | string;
  sessionVersion: number;
}

/** The user and their memberships (as a JSON array) in one statement; exported for the benchmark's raw-SQL side. */
export function actorSql(userId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT u.id, u.email, u.name, u."globalRole"::text AS "globalRole", u."sessionVersion",
           coalesce((SELECT json_agg(json_build_object('domainId', m."domainId", 'domainSlug', d.slug, 'role', m.role) ORDER BY m."domainId")
                       FROM "Membership" m JOIN "Domain" d ON d.id = m."domainId"
                      WHERE m."userId" = u.id), '[]'::json) AS memberships
      FROM "User" u WHERE u.id = ${userId}`;
}

/**
 * Loads the acting user fresh from the database (inside the action's
 * transaction, or per request in the portal), so a role removed a second ago
 * is no longer honoured: nothing is cached. One statement (the user and their
 * memberships as a JSON array), because this runs on every request: the ORM's
 * include took three queries and ~20 ms of client-side work on a loaded
 * machine against ~1 ms for the statement (issue 14, notes/scale2.md).
 */
export async function loadActor(db: Db | Tx, userId: string): Promise<Actor> {
  // Straight on the pool outside a transaction (read-rows.ts: text, enum as text and json columns only).
  const [user] = await readRows<ActorRow>(db, actorSql(userId));
  if (!user) throw new UnauthenticatedError("Your account no longer exists; sign in again.");
  // The driver hands json back parsed; a string would be the same array, serialised.
  const memberships = typeof user.memberships === "string" ? (JSON.parse(user.memberships) as Actor["memberships"]) : user.memberships;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    globalRole: user.globalRole,
    memberships: memberships.map((m) => ({ domainId: m.domainId, domainSlug: m.domainSlug, role: m.role })),
    sessionVersion: Number(user.sessionVersion),
  };
}

/**
 * Ends every session of the user (sign-out, a role removed or changed): the
 * session version goes up, and the portal refuses session cookies carrying
 * an older one (issue 30, finding 13). The new version is returned.
 */
export async function endSessions(db: Db | Tx, userId: string): Promise<number> {
  const rows = await db.$queryRaw<{ sessionVersion: number }[]>`UPDATE "User" SET "sessionVersion" = "sessionVersion" + 1 WHERE id = ${userId} RETURNING "sessionVersion"`;
  return rows[0]?.sessionVersion ?? 0;
}

/** The user's current session version (what a new session carries); 0 for an unknown user. */
export async function sessionVersionOf(db: Db | Tx, userId: string): Promise<number> {
  const rows = await db.$queryRaw<{ sessionVersion: number }[]>`SELECT "sessionVersion" FROM "User" WHERE id = ${userId}`;
  return rows[0]?.sessionVersion ?? 0;
}
