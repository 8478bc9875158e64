import { actingUser, replayDerivedJob } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * `{"from": "earliest" | "<ISO-8601 instant>", "reason"?}`: a new job of the derived product's statement reading its
 * inputs from that point under a new consumer group; its results are appended to the topic again. 202 with the
 * `command` for the worker, or — CONFIDENTIAL and RESTRICTED products — with the `changeRequest` governance reviews first.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await replayDerivedJob(db(), actingUser(actor), (await params).id, await readJson(request)), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
