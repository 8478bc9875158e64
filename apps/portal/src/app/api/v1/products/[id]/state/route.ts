import { actingUser, browseStateKeys, rebuildStateView, stateViewStatus, toJson } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * The latest-state view: without `prefix`/`after`/`keys`, its status and lag
 * (`{ view, partitions, lag }`); with `keys=1` (and optional `prefix`,
 * `after`, `limit`), a page of entries `{ entries, nextAfter }`.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const id = (await params).id;
    const q = queryObject(request);
    if (q.keys === undefined) return json(await stateViewStatus(db(), actor, id));
    const { keys: _keys, ...rest } = q;
    return Response.json(toJson(await browseStateKeys(db(), actor, id, rest)), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}

/** Owners: rebuild the view from offset 0 (`{ "rebuild": true }`). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await rebuildStateView(db(), actingUser(actor), (await params).id), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
