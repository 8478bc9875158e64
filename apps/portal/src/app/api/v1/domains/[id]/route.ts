import { actingUser, renameDomain } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Renames a domain (name, description); the slug never changes. */
export async function PATCH(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await renameDomain(db(), actingUser(await currentActor()), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
