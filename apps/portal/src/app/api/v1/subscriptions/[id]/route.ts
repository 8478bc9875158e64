import { subscriptionDetail } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json(await subscriptionDetail(db(), actor, (await params).id, env().KAFKA_BOOTSTRAP_DISPLAY));
  } catch (error) {
    return errorResponse(error);
  }
}
