import { browseMessages, parseSecretsKey, toJson } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse, queryObject } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * A page of the product's records, decoded and masked on the server:
 * `?partition=0[,1…]&offset=N | timestamp=ms|ISO | cursor=…&direction=forward|backward&limit=≤500&key=…[&keyEncoding=hex]`
 * → `{ "records": [...], next, previous, partitions, truncated, piiVisible, ... }`.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const e = env();
    const page = await browseMessages(db(), actor, (await params).id, queryObject(request), lazyMessageReader(), {
      budgetMs: e.KAPPA_BROWSE_BUDGET_MS,
      ratePerMinute: e.KAPPA_BROWSE_PAGES_PER_MINUTE,
      // Opens the product's DEKs so encrypted fields are decrypted for viewers entitled to PII (issue 29).
      ...(e.KAPPA_SECRETS_KEY ? { secretsKey: parseSecretsKey(e.KAPPA_SECRETS_KEY) } : {}),
    });
    // Records may hold personal data: never cached between here and the viewer.
    return Response.json(toJson(page), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
