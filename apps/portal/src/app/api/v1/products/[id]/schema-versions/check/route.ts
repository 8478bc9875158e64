import { checkSchemaVersion } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** What proposing this schema would do (compatible, identical, or refused with reasons); writes nothing. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await checkSchemaVersion(db(), await visibleActor("product", (await params).id), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
