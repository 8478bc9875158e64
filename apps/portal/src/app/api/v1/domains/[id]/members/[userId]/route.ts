import { changeMemberRole, removeDomainMember } from "@kappa/catalog";
import { currentActing } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

type Context = { params: Promise<{ id: string; userId: string }> };

export async function PATCH(request: Request, { params }: Context) {
  try {
    const { id, userId } = await params;
    return json(await changeMemberRole(db(), await currentActing(), id, userId, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function DELETE(_request: Request, { params }: Context) {
  try {
    const { id, userId } = await params;
    return json(await removeDomainMember(db(), await currentActing(), id, userId));
  } catch (error) {
    return errorResponse(error);
  }
}
