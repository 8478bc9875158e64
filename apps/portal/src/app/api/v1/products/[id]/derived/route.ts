import { actingUser, changeDerivedStatement } from "@kappa/catalog";
import { db } from "@/server/db";
import { flinkSettings } from "@/server/flink";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * `{"statement", "reason"}`: a new statement for an ACTIVE derived product's running or paused job (owners of its
 * domain). Planned by Flink (as POST /api/v1/derived/validate); a compatible output schema → 202 with the
 * `changeRequest` (DERIVED_STATEMENT) a governance reviewer approves before the worker carries it out — at once for a
 * running job, on resume for a paused one (`jobPaused`, `onApproval` say which); an incompatible one → 422
 * INCOMPATIBLE_OUTPUT_SCHEMA naming the fields (a new major version, a new product, is needed).
 */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await changeDerivedStatement(db(), actingUser(actor), (await params).id, await readJson(request), flinkSettings()), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
