import { actingUser, setSubscriptionExpiry } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** `{ expiresAt: "<ISO date>" | null }`: on expiry the recertification sweep revokes the subscription. */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await setSubscriptionExpiry(db(), actingUser(await visibleActor("subscription", (await params).id)), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
