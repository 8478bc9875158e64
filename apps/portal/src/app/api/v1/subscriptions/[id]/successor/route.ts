import { actingUser, requestSuccessorAccess, subscriptionSuccessorNotice } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

type Context = { params: Promise<{ id: string }> };

/** The product's newer major version for this subscription, or null while the product is not deprecated. */
export async function GET(_request: Request, { params }: Context) {
  try {
    return json(await subscriptionSuccessorNotice(db(), await currentActor(), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Requests the same access (account and purpose) on the newer major version. */
export async function POST(_request: Request, { params }: Context) {
  try {
    const actor = await currentActor();
    return json(await requestSuccessorAccess(db(), actingUser(actor), (await params).id), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
