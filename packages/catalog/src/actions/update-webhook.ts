import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { NotFoundError } from "../errors.ts";
import { updateWebhookInput } from "../notifications/inputs.ts";
import { requireDomainPermission } from "../product-access.ts";

/** Locks an endpoint and checks that the actor owns its domain. */
export async function lockWebhook(tx: Tx, actor: Actor, webhookId: string) {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "WebhookEndpoint" WHERE id = ${webhookId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Webhook", webhookId);
  const webhook = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: webhookId } });
  requireDomainPermission(actor, "webhook:manage", webhook.domainId, "Only owners of the domain can manage its webhooks.");
  return webhook;
}

/** Changes an endpoint's URL, description, event kinds, or pauses it (active: false). */
export async function updateWebhook(db: Db, acting: ActingUser, webhookId: string, rawInput: unknown) {
  const input = parseInput(updateWebhookInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const webhook = await lockWebhook(tx, actor, webhookId);
    const updated = await tx.webhookEndpoint.update({ where: { id: webhook.id }, data: input });
    await recordAudit(tx, actor, "webhook.updated", "Domain", webhook.domainId, { webhookId, changes: Object.keys(input) });
    return updated;
  });
}
