import { actingUser, changeMemberRole, removeDomainMember } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

type Context = { params: Promise<{ id: string; userId: string }> };

export async function PATCH(request: Request, { params }: Context) {
  try {
    const { id, userId } = await params;
    return json(await changeMemberRole(db(), actingUser(await currentActor()), id, userId, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function DELETE(_request: Request, { params }: Context) {
  try {
    const { id, userId } = await params;
    return json(await removeDomainMember(db(), actingUser(await currentActor()), id, userId));
  } catch (error) {
    return errorResponse(error);
  }
}
