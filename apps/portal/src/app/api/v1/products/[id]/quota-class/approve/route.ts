import { actingUser, approveQuotaClass } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Governance grants the waiting quota class (larger than the default); four eyes: not the person who asked. */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const id = (await params).id;
    return json(await approveQuotaClass(db(), actingUser(actor), { entityType: "DataProduct", id }));
  } catch (error) {
    return errorResponse(error);
  }
}
