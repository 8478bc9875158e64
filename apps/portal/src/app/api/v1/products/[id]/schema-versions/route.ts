import { actingUser, listSchemaVersions, proposeSchemaVersion } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

type Context = { params: Promise<{ id: string }> };

/** Every schema version of the product (proposals and rejections for its owners and governance only). */
export async function GET(_request: Request, { params }: Context) {
  try {
    return json(await listSchemaVersions(db(), await visibleActor("product", (await params).id), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Proposes the next version: 201 PENDING, or 409 INCOMPATIBLE_SCHEMA with the incompatibilities and the new-major offer. */
export async function POST(request: Request, { params }: Context) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await proposeSchemaVersion(db(), actingUser(actor), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
