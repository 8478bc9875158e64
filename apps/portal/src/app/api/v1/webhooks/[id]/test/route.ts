import { actingUser, sendTestWebhook } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Queues a signed "webhook.test" delivery (the worker sends it within a second or two). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("webhook", (await params).id);
    return json(await sendTestWebhook(db(), actingUser(actor), (await params).id), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
