import { actingUser, decideClaimAcls } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The reviewer's decision on each ACL found on a claimed topic: `{ decisions: [{ index, decision: "REMOVE" | "ADOPT" | "EXCEPTION", serviceAccount?, reason? }] }` (every ACL; four eyes against the claimant). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await decideClaimAcls(db(), actingUser(await visibleActor("product", (await params).id)), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
