import { lookupStateKey, toJson } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, queryObject } from "@/server/http";

/** The latest value of one key of a compacted product (`?encoding=hex` for a hex key), with the partition, offset and timestamp it came from. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string; key: string }> }) {
  try {
    const actor = await currentActor();
    const { id, key } = await params;
    const entry = await lookupStateKey(db(), actor, id, decodeURIComponent(key), queryObject(request).encoding);
    return Response.json(toJson(entry), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
