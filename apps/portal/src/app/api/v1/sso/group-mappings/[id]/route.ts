import { deleteSsoGroupMapping } from "@kappa/catalog";
import { currentActing } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await deleteSsoGroupMapping(db(), await currentActing(), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
