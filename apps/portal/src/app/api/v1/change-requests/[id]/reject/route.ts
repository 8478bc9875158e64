import { actingUser, rejectChangeRequest } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await rejectChangeRequest(db(), actingUser(await visibleActor("changeRequest", (await params).id)), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
