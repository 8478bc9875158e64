import { actingUser, pauseDerivedJob } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Owners of the derived product's domain ask for its Flink job to be stopped with a savepoint: 202 with the recorded `command`, which the worker carries out. */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await pauseDerivedJob(db(), actingUser(actor), (await params).id), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
