import { lookupStateKey, toJson } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, queryObject } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The latest value of one key of a compacted product (`?encoding=hex` for a hex key), with the partition, offset and timestamp it came from. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string; key: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const { id } = await params;
    // Decode the key exactly once from the raw path (whether the router decoded params or not).
    const raw = new URL(request.url).pathname.split("/").pop() ?? "";
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      key = raw;
    }
    const entry = await lookupStateKey(db(), actor, id, key, queryObject(request).encoding);
    return Response.json(toJson(entry), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
