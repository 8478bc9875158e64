import { actingUser, requestSuccessorAccess, subscriptionSuccessorNotice } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

type Context = { params: Promise<{ id: string }> };

/** The product's newer major version for this subscription, or null while the product is not deprecated. */
export async function GET(_request: Request, { params }: Context) {
  try {
    return json(await subscriptionSuccessorNotice(db(), await visibleActor("subscription", (await params).id), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Requests the same access (account and purpose) on the newer major version. */
export async function POST(_request: Request, { params }: Context) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json(await requestSuccessorAccess(db(), actingUser(actor), (await params).id), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
