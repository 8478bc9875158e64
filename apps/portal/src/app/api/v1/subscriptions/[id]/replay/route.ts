import { actingUser, requestReplay } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * Governed replay of one of the subscription's consumer groups:
 * `{ "group"?: name, "to": "earliest" | "latest" | { "timestamp": ms } | { "offsets": [{ "partition", "offset" }] } | { "shiftBy": n }, "dryRun"?: true }`.
 * dryRun → 200 with the preview (`records` in total, `partitions` with per-partition figures);
 * otherwise 202 with the recorded `replay` — the worker applies it (409 GROUP_ACTIVE while the group has members).
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    const result = await requestReplay(db(), actingUser(actor), (await params).id, await readJson(request), lazyMessageReader());
    return json(result, result.dryRun ? 200 : 202);
  } catch (error) {
    return errorResponse(error);
  }
}
