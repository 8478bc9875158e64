import { currentPolicy } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** The policy in force (YAML source and parsed rules), for every signed-in user and tool. */
export async function GET() {
  try {
    await currentActor();
    return json(await currentPolicy(db()));
  } catch (error) {
    return errorResponse(error);
  }
}
