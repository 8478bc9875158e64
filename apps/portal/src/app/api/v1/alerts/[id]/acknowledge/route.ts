import { acknowledgeAlert, actingUser } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** An owner acknowledges a firing alert (who and when are shown on it; audited). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    return json(await acknowledgeAlert(db(), actingUser(await currentActor()), id));
  } catch (error) {
    return errorResponse(error);
  }
}
