import { actingUser, approveSchemaVersion } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Body: `{ fingerprint, comment? }` — the fingerprint of the version the reviewer opened. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("schemaVersion", (await params).id);
    return json(await approveSchemaVersion(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
