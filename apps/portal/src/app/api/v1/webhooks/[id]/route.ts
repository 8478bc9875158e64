import { actingUser, deleteWebhook, updateWebhook } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function PATCH(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("webhook", (await params).id);
    return json(await updateWebhook(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("webhook", (await params).id);
    return json(await deleteWebhook(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
