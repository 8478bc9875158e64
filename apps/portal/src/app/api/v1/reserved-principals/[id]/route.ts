import { actingUser, removeReservedPrincipal } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** Removes an admin-added reservation (platform and worker entries are refused: 409 RESERVED_BY_PLATFORM). */
export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    return json(await removeReservedPrincipal(db(), actingUser(await currentActor()), id));
  } catch (error) {
    return errorResponse(error);
  }
}
