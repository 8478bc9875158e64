import { actingUser, retryTask } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Re-queues a FAILED task; the worker's retryTask checks who may, in the same transaction. */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("provisioningTask", (await params).id);
    return json(await retryTask(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
