import { webhookDeliveries } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * The delivery log: `{ endpoint, deliveries: [{ status, attempts, lastStatusCode, outcome, log: [{ attempt, at, statusCode, outcome, error, durationMs }] }] }`;
 * an outcome is delivered / refused by the platform / failed with HTTP n / timed out, never a transport error (durationMs is null without an HTTP answer).
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("webhook", (await params).id);
    return json(await webhookDeliveries(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
