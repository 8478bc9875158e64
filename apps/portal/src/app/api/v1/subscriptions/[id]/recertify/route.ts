import { actingUser, recertifySubscription } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** `{ decision: "keep" | "revoke", reason }` (the product's owners, governance). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await recertifySubscription(db(), actingUser(await visibleActor("subscription", (await params).id)), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
