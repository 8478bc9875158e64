import { checkSchemaVersion } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** What proposing this schema would do (compatible, identical, or refused with reasons); writes nothing. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await checkSchemaVersion(db(), await currentActor(), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
