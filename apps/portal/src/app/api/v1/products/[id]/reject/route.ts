import { rejectProduct } from "@kappa/catalog";
import { currentActing } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await rejectProduct(db(), await currentActing(), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
