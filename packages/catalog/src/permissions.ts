import type { Actor } from "./actor.ts";
import { ForbiddenError } from "./errors.ts";

/**
 * Every action the catalog allows, as "resource:action". Domain-scoped
 * permissions are granted through a membership in that domain; global ones
 * through the user's global role. The portal's UI hook mirrors this map; the
 * server check below is the one that counts.
 */
export const PERMISSIONS = [
  "product:create",
  "product:update",
  "product:submit",
  "product:deprecate",
  "product:retire",
  "product:review",
  /** Promote an ACTIVE product to another environment (its own review follows). */
  "product:promote",
  /** Read a product's records (message browser, latest-state view): its domain, or an active subscriber's. */
  "product:browse",
  /** Rebuild a compacted product's latest-state view from offset 0. */
  "stateView:rebuild",
  "webhook:manage",
  "serviceAccount:create",
  "subscription:request",
  "subscription:decide",
  "subscription:revoke",
  /** Reset one of the subscription's consumer groups (governed replay) and set its lag objectives. */
  "subscription:replay",
  "audit:read",
  "platform:admin",
  /** Create, rename, archive and restore domains. */
  "domain:manage",
  /** Add and remove a domain's members and change their role (owners: in their own domain). */
  "member:manage",
  /** Global roles and the single-sign-on group mapping. */
  "user:manage",
  /** Register and change the Kafka clusters named as environments. */
  "cluster:manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const DOMAIN_ROLE_PERMISSIONS: Record<"OWNER" | "MEMBER", readonly Permission[]> = {
  OWNER: [
    "product:create",
    "product:update",
    "product:submit",
    "product:deprecate",
    "product:retire",
    "product:promote",
    "product:browse",
    "stateView:rebuild",
    "webhook:manage",
    "serviceAccount:create",
    "subscription:request",
    "subscription:decide",
    "subscription:revoke",
    "member:manage",
    "subscription:replay",
  ],
  MEMBER: ["subscription:request", "product:browse"],
};

const GLOBAL_ROLE_PERMISSIONS: Record<"USER" | "GOVERNANCE" | "ADMIN", readonly Permission[]> = {
  USER: [],
  GOVERNANCE: ["product:review", "subscription:decide", "subscription:revoke", "audit:read"],
  ADMIN: ["audit:read", "platform:admin", "domain:manage", "member:manage", "user:manage", "cluster:manage"],
};

/** Whether the actor holds `permission`, in `domainId` when one is given. */
export function can(actor: Actor, permission: Permission, domainId?: string): boolean {
  if (GLOBAL_ROLE_PERMISSIONS[actor.globalRole].includes(permission)) return true;
  if (domainId === undefined) {
    return actor.memberships.some((m) => DOMAIN_ROLE_PERMISSIONS[m.role].includes(permission));
  }
  const membership = actor.memberships.find((m) => m.domainId === domainId);
  return membership !== undefined && DOMAIN_ROLE_PERMISSIONS[membership.role].includes(permission);
}

/** Domain-scoped check only: a global role does not stand in for ownership. */
export function canInDomain(actor: Actor, permission: Permission, domainId: string): boolean {
  const membership = actor.memberships.find((m) => m.domainId === domainId);
  return membership !== undefined && DOMAIN_ROLE_PERMISSIONS[membership.role].includes(permission);
}

export function hasGlobal(actor: Actor, permission: Permission): boolean {
  return GLOBAL_ROLE_PERMISSIONS[actor.globalRole].includes(permission);
}

export function requirePermission(actor: Actor, permission: Permission, domainId?: string, what?: string): void {
  if (!can(actor, permission, domainId)) {
    throw new ForbiddenError(`You are not allowed to ${what ?? permission.replace(":", " ")}.`);
  }
}

/** Permissions the actor holds in each of their domains, for the UI to mirror. */
export function permissionSummary(actor: Actor): { global: Permission[]; domains: Record<string, Permission[]> } {
  const domains: Record<string, Permission[]> = {};
  for (const m of actor.memberships) domains[m.domainId] = [...DOMAIN_ROLE_PERMISSIONS[m.role]];
  return { global: [...GLOBAL_ROLE_PERMISSIONS[actor.globalRole]], domains };
}
