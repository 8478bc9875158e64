import { actingUser, qualityRulesImpact, toJson } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * GET — what a pending change of a product's data-quality rules would do (issue 29), for governance reviewers and the
 * owners of the product's domain: the rules in force and the proposed ones evaluated on the newest records of its topic
 * (read like the message browser's), counts only — `{ sampled, evaluated, undecodable, tombstones, current, proposed, note }`,
 * each rule set as `{ rules: [{ name, mode, onFailure, passed, failed, errored }], failingRecords, keptOffTopic }`.
 * 409 for another kind of change or one already decided. The read is audited.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("changeRequest", (await params).id);
    const result = await qualityRulesImpact(db(), actingUser(actor), (await params).id, lazyMessageReader(), { ratePerMinute: env().KAPPA_BROWSE_PAGES_PER_MINUTE });
    return Response.json(toJson(result), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
