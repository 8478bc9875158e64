import { listReplays } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The subscription's replays, newest first, with their status and what the worker committed. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json(await listReplays(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
