import { actingUser, setSubscriptionObjective, subscriptionSlo } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The subscription's lag objectives, its consumer groups against them (records and seconds), lag history and alert history. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json(await subscriptionSlo(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Sets the subscriber's objectives `{ "maxLagRecords": n | null, "maxLagSeconds": n | null }` (both null: none); the worker's alert rules watch them. */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json({ objective: await setSubscriptionObjective(db(), actingUser(actor), (await params).id, await readJson(request)) });
  } catch (error) {
    return errorResponse(error);
  }
}
