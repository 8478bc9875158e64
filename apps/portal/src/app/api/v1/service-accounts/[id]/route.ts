import { getServiceAccount } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** One account of the caller's domains with its client quota in force (issue 33); 404 for any other. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("serviceAccount", (await params).id);
    return json(await getServiceAccount(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
