import { actingUser, previewRedrive } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * POST `{ selection }` (as for a redrive request): what a redrive would send now, for the product's owners —
 * `{ count, matched, alreadyRedriven, fourEyes, records (the first ones, masked like the DLQ panel), upTo }`. Nothing is recorded but the read (audited).
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const preview = await previewRedrive(db(), actingUser(actor), (await params).id, await readJson(request), lazyMessageReader(), { ratePerMinute: env().KAPPA_BROWSE_PAGES_PER_MINUTE });
    return json(preview);
  } catch (error) {
    return errorResponse(error);
  }
}
