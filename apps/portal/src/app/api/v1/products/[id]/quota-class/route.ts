import { actingUser, setProductQuotaClass } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** An owner chooses the quota class of the product's producer account: `{ quotaClass, reason? }`; a class larger than the default waits for governance. */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const id = (await params).id;
    return json(await setProductQuotaClass(db(), actingUser(actor), id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
