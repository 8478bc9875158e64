import { actingUser, decideRedrive } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * POST `{ decision: "approve" | "reject", reason? }` on a waiting redrive (a CONFIDENTIAL or RESTRICTED product's):
 * another owner of the domain or governance, never the requester (four eyes); a rejection says why.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string; requestId: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await decideRedrive(db(), actingUser(actor), (await params).id, (await params).requestId, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
