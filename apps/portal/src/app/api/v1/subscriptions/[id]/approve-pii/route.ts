import { actingUser, approveSubscriptionPii } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Governance grants the subscription's stated PII need (PII then shows unmasked to its domain). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json(await approveSubscriptionPii(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
