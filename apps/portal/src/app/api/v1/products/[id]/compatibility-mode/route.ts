import { actingUser, requestCompatibilityModeChange } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Body: `{ mode, reason }` — a reviewed change; it applies when governance approves it. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await requestCompatibilityModeChange(db(), actingUser(actor), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
