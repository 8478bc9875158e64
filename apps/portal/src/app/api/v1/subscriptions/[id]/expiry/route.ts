import { actingUser, setSubscriptionExpiry } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** `{ expiresAt: "<ISO date>" | null }`: on expiry the recertification sweep revokes the subscription. */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await setSubscriptionExpiry(db(), actingUser(await currentActor()), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
