import { parseSecretsKey, readDeadLetters, toJson } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse } from "@/server/http";
import { lazyMessageReader } from "@/server/message-reader";
import { visibleActor } from "@/server/visible";

/**
 * The product's dead-letter topic `<topic>.dlq` for its owners (issue 29):
 * `{ topic, enabled, count, addedLastHour, observedAt, history, records: [{ partition, offset, timestamp, rule, mode, error, key, value }], note }`
 * — the newest records with the rule each failed, read and decoded like the message browser's.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const e = env();
    const page = await readDeadLetters(db(), actor, (await params).id, lazyMessageReader(), {
      ratePerMinute: e.KAPPA_BROWSE_PAGES_PER_MINUTE,
      // The owners see encrypted fields decrypted, as in the message browser.
      ...(e.KAPPA_SECRETS_KEY ? { secretsKey: parseSecretsKey(e.KAPPA_SECRETS_KEY) } : {}),
    });
    // Dead letters hold the records a producer wrote: never cached between here and the owner.
    return Response.json(toJson(page), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
