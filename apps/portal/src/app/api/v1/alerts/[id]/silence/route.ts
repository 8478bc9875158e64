import { actingUser, silenceAlert, unsilenceAlert } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** An owner silences a firing alert's rule: `{ "duration": "1h" | "24h" | "7d" }` or `{ "until": "<ISO date-time>" }`, optional `reason`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    return json(await silenceAlert(db(), actingUser(await currentActor()), id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Ends the silence early. */
export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    return json(await unsilenceAlert(db(), actingUser(await currentActor()), id));
  } catch (error) {
    return errorResponse(error);
  }
}
