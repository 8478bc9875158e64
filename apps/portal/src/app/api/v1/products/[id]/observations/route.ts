import { productObservations } from "@kappa/catalog";
import { env } from "@/env";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    return json(await productObservations(db(), actor, (await params).id, env().KAFKA_BOOTSTRAP_DISPLAY));
  } catch (error) {
    return errorResponse(error);
  }
}
