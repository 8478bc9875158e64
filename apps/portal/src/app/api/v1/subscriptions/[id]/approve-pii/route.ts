import { actingUser, approveSubscriptionPii } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** Governance grants the subscription's stated PII need (PII then shows unmasked to its domain). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    return json(await approveSubscriptionPii(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
