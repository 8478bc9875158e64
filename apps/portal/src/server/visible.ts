import "server-only";
import { requireVisible, type Actor, type VisibleKind } from "@kappa/catalog";
import { currentActor } from "./actor";
import { db } from "./db";

/**
 * The caller (401 without one), once the resource in the route's path is
 * known to be visible to them: every route under /products/{id},
 * /subscriptions/{id}, /service-accounts/{id}, /schema-versions/{id},
 * /change-requests/{id}, /promotions/{id}, /provisioning-tasks/{id} and
 * /webhooks/{id} starts here, so an id the caller may not see answers the
 * same 404 as one that does not exist, before any validation or permission
 * check (issue 30, finding 9; src/server/visible.test.ts checks every such route uses it).
 */
export async function visibleActor(kind: VisibleKind, id: string): Promise<Actor> {
  const actor = await currentActor();
  await requireVisible(db(), actor, kind, id);
  return actor;
}
