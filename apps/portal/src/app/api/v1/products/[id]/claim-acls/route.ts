import { actingUser, decideClaimAcls } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** The reviewer's keep/remove decision on a claimed topic's existing ACLs: `{ remove: [index, ...] }`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await decideClaimAcls(db(), actingUser(await currentActor()), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
