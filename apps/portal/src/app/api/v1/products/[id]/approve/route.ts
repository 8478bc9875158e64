import { approveProduct } from "@kappa/catalog";
import { currentActing } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await approveProduct(db(), await currentActing(), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
