import { actingUser, forgetBroker } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Asks the worker to forget a broker that is down for good (platform admins; the catalog checks who and that it is down): 202. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string; nodeId: string }> }) {
  try {
    const actor = await currentActor();
    const { id, nodeId } = await params;
    return json(await forgetBroker(db(), actingUser(actor), id, nodeId, await readJson(request)), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
