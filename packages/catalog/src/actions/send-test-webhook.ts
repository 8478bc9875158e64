import { randomBytes } from "node:crypto";
import { inTransaction, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import type { WebhookPayload } from "../notifications/notify.ts";
import { lockWebhook } from "./update-webhook.ts";

/** Queues a "webhook.test" delivery to one endpoint; the worker sends it like any other (signed, retried, logged). */
export async function sendTestWebhook(db: Db, acting: ActingUser, webhookId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const webhook = await lockWebhook(tx, actor, webhookId);
    const payload: WebhookPayload = {
      id: `test_${randomBytes(8).toString("hex")}`,
      kind: "webhook.test",
      createdAt: new Date().toISOString(),
      title: "Test delivery from Kappa Mesh",
      body: `Sent by ${actor.email} to check this endpoint.`,
      link: null,
      entity: { type: "WebhookEndpoint", id: webhook.id },
      data: {},
    };
    return tx.webhookDelivery.create({ data: { endpointId: webhook.id, kind: "webhook.test", payload: { ...payload } } });
  });
}
