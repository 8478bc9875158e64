import { policyVersionDetail, ValidationError } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function GET(_request: Request, { params }: { params: Promise<{ version: string }> }) {
  try {
    const actor = await currentActor();
    const version = Number((await params).version);
    if (!Number.isInteger(version) || version < 1) throw new ValidationError("The policy version is a positive whole number.");
    return json(await policyVersionDetail(db(), actor, version));
  } catch (error) {
    return errorResponse(error);
  }
}
