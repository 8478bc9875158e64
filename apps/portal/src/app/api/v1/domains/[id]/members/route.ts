import { actingUser, addDomainMember, domainMembers } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

type Context = { params: Promise<{ id: string }> };

/** The domain's members, roles and their source (admins and the domain's owners). */
export async function GET(_request: Request, { params }: Context) {
  try {
    return json(await domainMembers(db(), await currentActor(), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request, { params }: Context) {
  try {
    return json(await addDomainMember(db(), actingUser(await currentActor()), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
