import { actingUser, requestKeyErasure } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * An owner's erasure request (issue 29): `{ reason, irreversible: true }` → a KEY_ERASURE change request; when a
 * governance reviewer other than the requester approves it, the product's encryption keys (DEKs) are destroyed.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await requestKeyErasure(db(), actingUser(actor), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
