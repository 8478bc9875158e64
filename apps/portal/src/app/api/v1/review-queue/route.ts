import { pendingSchemaVersions, reviewQueue } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function GET() {
  try {
    const actor = await currentActor();
    const [queue, schemaVersions] = await Promise.all([reviewQueue(db(), actor), pendingSchemaVersions(db(), actor)]);
    return json({ ...queue, schemaVersions });
  } catch (error) {
    return errorResponse(error);
  }
}
