import { actingUser, publishMajorVersion } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Publishes `<domain>.<product>.v<N+1>` with the given schema; the product itself is deprecated at the chosen sunset date. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await publishMajorVersion(db(), actingUser(actor), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
