"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { Permission } from "@kappa/catalog/permissions";
import type { Me } from "@/lib/api-types";

const ActorContext = createContext<Me | null>(null);

export function ActorProvider({ actor, children }: { actor: Me; children: ReactNode }) {
  return <ActorContext.Provider value={actor}>{children}</ActorContext.Provider>;
}

export function useActor(): Me {
  const actor = useContext(ActorContext);
  if (!actor) throw new Error("useActor() outside the signed-in layout");
  return actor;
}

/**
 * Mirrors the catalog's `can()` for deciding which actions to show. Hiding a
 * button is a courtesy; every action is checked again on the server.
 */
export function usePermissions() {
  const { permissions } = useActor();
  return {
    can(permission: Permission, domainId?: string): boolean {
      if (permissions.global.includes(permission)) return true;
      if (domainId === undefined) return Object.values(permissions.domains).some((list) => list.includes(permission));
      return permissions.domains[domainId]?.includes(permission) ?? false;
    },
    /** Domain-scoped only: a global role does not make someone an owner. */
    canInDomain(permission: Permission, domainId: string): boolean {
      return permissions.domains[domainId]?.includes(permission) ?? false;
    },
    hasGlobal(permission: Permission): boolean {
      return permissions.global.includes(permission);
    },
  };
}
