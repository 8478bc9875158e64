import { actingUser, decideClaimAcls } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The reviewer's keep/remove decision on a claimed topic's existing ACLs: `{ remove: [index, ...] }`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await decideClaimAcls(db(), actingUser(await visibleActor("product", (await params).id)), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
