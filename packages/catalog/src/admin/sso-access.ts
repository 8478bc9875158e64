import type { GlobalRole, MembershipRole } from "@prisma/client";

/** One row of the group mapping, as the sign-in needs it. */
export interface GroupMapping {
  group: string;
  domainId: string | null;
  role: MembershipRole | null;
  globalRole: GlobalRole | null;
}

export interface SsoAccess {
  /** domainId → the strongest role any of the user's groups maps to. */
  memberships: Map<string, MembershipRole>;
  globalRole: GlobalRole;
}

const MEMBERSHIP_RANK: Record<MembershipRole, number> = { MEMBER: 1, OWNER: 2 };
const GLOBAL_RANK: Record<GlobalRole, number> = { USER: 0, GOVERNANCE: 1, ADMIN: 2 };

/**
 * What the user's groups grant under the mapping. Group values compare
 * exactly (providers treat them as opaque ids). Several groups on one domain
 * give the strongest role; several global roles give the strongest of
 * GOVERNANCE < ADMIN (an admin mapped both ways is an admin — the two roles'
 * permissions differ, so map a group to the one role you mean).
 */
export function ssoAccessFor(mappings: GroupMapping[], groups: readonly string[]): SsoAccess {
  const have = new Set(groups);
  const memberships = new Map<string, MembershipRole>();
  let globalRole: GlobalRole = "USER";
  for (const m of mappings) {
    if (!have.has(m.group)) continue;
    if (m.domainId && m.role) {
      const current = memberships.get(m.domainId);
      if (!current || MEMBERSHIP_RANK[m.role] > MEMBERSHIP_RANK[current]) memberships.set(m.domainId, m.role);
    } else if (m.globalRole && GLOBAL_RANK[m.globalRole] > GLOBAL_RANK[globalRole]) {
      globalRole = m.globalRole;
    }
  }
  return { memberships, globalRole };
}

/** The groups claim as providers send it: an array of strings, one string, or a space/comma separated string. */
export function groupsFromClaim(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.length > 0);
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return [];
}
