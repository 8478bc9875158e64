import { actingUser, requestPartitionIncrease } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** An owner asks for more partitions on an ACTIVE product: `{ partitions, reason }` → a change request for governance. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await requestPartitionIncrease(db(), actingUser(await visibleActor("product", (await params).id)), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
