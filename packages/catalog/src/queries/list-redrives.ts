import { loadActingActor, type ActingUser } from "../action.ts";
import { canDecideRedrive } from "../actions/decide-redrive.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { fourEyesConflict } from "../four-eyes.ts";

/** Requests shown per product (newest first). */
export const REDRIVES_SHOWN = 20;

/**
 * GET …/dlq/redrive: a product's redrive requests with their state and the
 * worker's progress, for those who request or decide them (the domain's owners
 * and governance). `canDecide` says whether this viewer may approve or reject
 * a waiting one (not their own: four eyes).
 */
export async function listRedrives(db: Db, acting: ActingUser, productId: string) {
  const actor = await loadActingActor(db, acting);
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { domainId: true } });
  if (!product) throw new NotFoundError("Data product", productId);
  if (!canDecideRedrive(actor, product.domainId)) throw new ForbiddenError("Only the product's owners and governance see its redrives.");
  const rows = await db.redriveRequest.findMany({ where: { productId }, orderBy: { createdAt: "desc" }, take: REDRIVES_SHOWN });
  // A run the task runner gave up on (attempts exhausted) leaves the request RUNNING or APPROVED: shown as FAILED with the task's error.
  const gaveUp = await db.provisioningTask.findMany({ where: { entityType: "RedriveRequest", entityId: { in: rows.filter((r) => r.status === "APPROVED" || r.status === "RUNNING").map((r) => r.id) }, status: "FAILED" }, select: { entityId: true, lastError: true } });
  const people = await db.user.findMany({ where: { id: { in: [...new Set(rows.flatMap((r) => [r.requestedById, r.decidedById ?? ""]))] } }, select: { id: true, name: true } });
  const nameOf = (id: string | null) => (id ? (people.find((p) => p.id === id)?.name ?? null) : null);
  return {
    redrives: rows.map(({ runToken: _token, upTo: _upTo, ...r }) => ({
      ...r,
      ...(gaveUp.some((t) => t.entityId === r.id) ? { status: "FAILED", error: r.error ?? gaveUp.find((t) => t.entityId === r.id)?.lastError ?? "the worker gave up" } : {}),
      requestedBy: nameOf(r.requestedById),
      decidedBy: nameOf(r.decidedById),
      mine: r.requestedById === actor.id,
      canDecide: r.status === "REQUESTED" && fourEyesConflict(actor.id, { requestedById: r.requestedById }) === null,
    })),
  };
}
