import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { lockWebhook } from "./update-webhook.ts";

/** Removes an endpoint and its delivery log; pending deliveries are dropped with it. */
export async function deleteWebhook(db: Db, acting: ActingUser, webhookId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const webhook = await lockWebhook(tx, actor, webhookId);
    await tx.webhookEndpoint.delete({ where: { id: webhook.id } });
    await recordAudit(tx, actor, "webhook.deleted", "Domain", webhook.domainId, { webhookId, url: webhook.url });
    return { id: webhook.id };
  });
}
