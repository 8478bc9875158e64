import { actingUser, rejectQuotaClass } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Governance refuses the waiting quota class: `{ reason }`; the class in force stays. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    const id = (await params).id;
    return json(await rejectQuotaClass(db(), actingUser(actor), { entityType: "Subscription", id }, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
