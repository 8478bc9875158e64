import { actingUser, listRedrives, requestRedrive } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * Redrive of the product's dead letters (issue 29).
 * GET: the product's redrive requests with state and progress (owners and governance).
 * POST `{ selection: { kind: "records", records: [{ partition, offset }] } | { kind: "filter", rule?, partition?, fromOffset?, toOffset?, fromTime?, toTime? } | { kind: "all" }, reason? }`
 * → 201 `{ request, fourEyes }`: APPROVED and queued for the worker, or REQUESTED until a second person decides (CONFIDENTIAL and above).
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await listRedrives(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const result = await requestRedrive(db(), actingUser(actor), (await params).id, await readJson(request), lazyMessageReader(), { ratePerMinute: env().KAPPA_BROWSE_PAGES_PER_MINUTE });
    return json(result, 201);
  } catch (error) {
    return errorResponse(error);
  }
}
