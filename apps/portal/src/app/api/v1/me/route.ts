import { permissionSummary } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { errorResponse, json } from "@/server/http";

export async function GET() {
  try {
    const actor = await currentActor();
    return json({ ...actor, permissions: permissionSummary(actor) });
  } catch (error) {
    return errorResponse(error);
  }
}
