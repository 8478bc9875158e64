import { readProductQuality } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";
import { visibleActor } from "@/server/visible";

/**
 * The product's observed quality (issue 29), for everyone who may see the
 * product — consumers before they subscribe: `?window=1h|24h|7d` (default
 * 24h) → `{ measured, overall, rules: [{ name, share, … }], series, … }`,
 * from the worker's samples of the topic's new records. `measured: false`
 * when nothing was sampled: there is no score then.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await readProductQuality(db(), actor, (await params).id, queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
