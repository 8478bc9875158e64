import type { RedriveRequest } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { notify } from "../notifications/notify.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { enqueueRedrive } from "./request-redrive.ts";

/*
 * The second person on a redrive of a CONFIDENTIAL or RESTRICTED product's
 * dead letters (issue 29): another owner of the product's domain or
 * governance approves — the worker then sends them — or rejects with a
 * reason. Never the requester (four eyes), whatever their roles.
 */

export const decideRedriveInput = z
  .object({
    decision: z.enum(["approve", "reject"], { error: 'must be "approve" or "reject"' }),
    reason: z.string().trim().max(1000).optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    if (d.decision === "reject" && !d.reason) ctx.addIssue({ code: "custom", message: "say why the redrive is rejected", path: ["reason"] });
  });

/** Who may decide on a product's redrives: the domain's owners and governance. */
export function canDecideRedrive(actor: Actor, domainId: string): boolean {
  return canInDomain(actor, "product:update", domainId) || hasGlobal(actor, "product:review");
}

async function lockRedrive(tx: Tx, productId: string, requestId: string): Promise<RedriveRequest> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "RedriveRequest" WHERE id = ${requestId} AND "productId" = ${productId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Redrive request", requestId);
  return tx.redriveRequest.findUniqueOrThrow({ where: { id: requestId } });
}

/** POST …/dlq/redrive/{requestId}/decision `{ decision: "approve" | "reject", reason? }`. */
export async function decideRedrive(db: Db, acting: ActingUser, productId: string, requestId: string, rawInput: unknown) {
  const input = parseInput(decideRedriveInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await tx.dataProduct.findUnique({ where: { id: productId }, select: { id: true, name: true, domainId: true, status: true } });
    if (!product) throw new NotFoundError("Data product", productId);
    if (!canDecideRedrive(actor, product.domainId)) throw new ForbiddenError("Only another owner of the product's domain or governance decides on a redrive.");
    const request = await lockRedrive(tx, productId, requestId);
    if (request.status !== "REQUESTED") throw new ConflictError(`The redrive is ${request.status}: it was decided already.`, "ALREADY_DECIDED");
    assertFourEyes(actor, { requestedById: request.requestedById }, "this redrive");
    if (input.decision === "approve" && product.status === "RETIRED") throw new ConflictError(`"${product.name}" is RETIRED: nothing is redriven into it.`, "PRODUCT_RETIRED");
    const status = input.decision === "approve" ? "APPROVED" : "REJECTED";
    const updated = await tx.redriveRequest.update({ where: { id: requestId }, data: { status, decidedById: actor.id, decidedAt: new Date(), decisionReason: input.reason ?? null } });
    if (status === "APPROVED") await enqueueRedrive(tx, requestId);
    await recordAudit(tx, actor, status === "APPROVED" ? "product.redrive-approved" : "product.redrive-rejected", "DataProduct", productId, {
      requestId,
      count: request.previewed,
      ...(input.reason ? { reason: input.reason } : {}),
    });
    await notify(tx, {
      kind: "redrive.decided",
      title: `${product.name}: your redrive of ${request.previewed} dead letter${request.previewed === 1 ? "" : "s"} was ${status === "APPROVED" ? "approved" : "rejected"}`,
      body: status === "APPROVED" ? `Approved by ${actor.name}; the worker sends them back to ${request.topic}.` : `Rejected by ${actor.name}: ${input.reason ?? ""}`,
      link: `/products/${productId}#live`,
      entityType: "DataProduct",
      entityId: productId,
      audience: { users: [request.requestedById] },
      webhookDomains: [product.domainId],
    });
    return updated;
  });
}
