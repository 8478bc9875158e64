import { schemaVersionReview } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** A schema version's review: field diff, verdicts per mode, and the readers a FORWARD-incompatible change would break. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await schemaVersionReview(db(), await visibleActor("schemaVersion", (await params).id), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
