import { actingUser, testQualityRules, toJson } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse, readJson } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * POST `{ rules: [...] }` — the edited rules, unsaved (issue 29's test button), for the owners of the product's domain:
 * evaluated against the newest records of its topic, read like the message browser's. 200 with
 * `{ topic, sampled, evaluated, undecodable, tombstones, rules: [{ name, passed, failed, errored }], failing: [{ partition, offset, timestamp, key, value, failed }], failingRecords, note }`;
 * rules the catalog would refuse get a 400 naming `rules.<i>.<field>`. Nothing is saved; the read is audited.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const result = await testQualityRules(db(), actingUser(actor), (await params).id, await readJson(request), lazyMessageReader(), { ratePerMinute: env().KAPPA_BROWSE_PAGES_PER_MINUTE });
    // The failing records are the product's data: never cached between here and the owner.
    return Response.json(toJson(result), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
