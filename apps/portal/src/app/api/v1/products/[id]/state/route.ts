import { actingUser, browseStateKeys, parseInput, rebuildStateView, stateQueryInput, stateViewStatus, toJson } from "@kappa/catalog";
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
    // One schema for the whole query, the document's (issue 30, finding 18): a bad parameter is 400 on either answer.
    const { keys, ...page } = parseInput(stateQueryInput, queryObject(request));
    if (keys === undefined) return json(await stateViewStatus(db(), actor, id));
    return Response.json(toJson(await browseStateKeys(db(), actor, id, page)), { headers: { "cache-control": "no-store" } });
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
