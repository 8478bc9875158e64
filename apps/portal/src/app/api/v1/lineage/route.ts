import { lineageGraph } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";

/**
 * The lineage graph for tools: `?productId=` for the neighbourhood of one
 * product (`depth` hops along declared inputs, default 2), none for the whole
 * mesh; `unusedDays` (default 30) sets when a grant counts as unused. Edges say
 * `granted` and `observed`; `flags` name what to look at.
 */
export async function GET(request: Request) {
  try {
    return json(await lineageGraph(db(), await currentActor(), queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
