import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { WEBHOOK_REFUSED, WEBHOOK_TIMED_OUT, webhookAttemptError, webhookOutcome } from "../notifications/webhook-outcome.ts";
import { canInDomain } from "../permissions.ts";

/** A domain's endpoints with their latest deliveries (owners of the domain only). */
export async function domainWebhooks(db: Db, actor: Actor, domainId: string) {
  if (!canInDomain(actor, "webhook:manage", domainId)) throw new ForbiddenError("Only owners of the domain can see its webhooks.");
  const endpoints = await db.webhookEndpoint.findMany({ where: { domainId }, orderBy: { createdAt: "asc" } });
  const counts = await db.webhookDelivery.groupBy({ by: ["endpointId", "status"], where: { endpointId: { in: endpoints.map((e) => e.id) } }, _count: true });
  return endpoints.map((e) => ({
    ...e,
    deliveries: Object.fromEntries(counts.filter((c) => c.endpointId === e.id).map((c) => [c.status, c._count])),
  }));
}

/**
 * The delivery log of one endpoint: each delivery with its attempts. An
 * attempt says only its outcome (delivered / refused by the platform / failed
 * with HTTP n / timed out: notifications/webhook-outcome.ts); rows written
 * before that rule are mapped the same way, and an attempt without an HTTP
 * answer has no duration (connection refused in 1 ms vs a silent port's full
 * deadline would tell the two apart).
 */
export async function webhookDeliveries(db: Db, actor: Actor, webhookId: string, limit = 50) {
  const endpoint = await db.webhookEndpoint.findUnique({ where: { id: webhookId } });
  if (!endpoint) throw new NotFoundError("Webhook", webhookId);
  if (!canInDomain(actor, "webhook:manage", endpoint.domainId)) throw new ForbiddenError("Only owners of the domain can see its webhooks.");
  const deliveries = await db.webhookDelivery.findMany({
    where: { endpointId: webhookId },
    include: { log: { orderBy: { at: "asc" } } },
    orderBy: { createdAt: "desc" },
    take: Math.min(Math.max(limit, 1), 200),
  });
  return {
    endpoint,
    deliveries: deliveries.map(({ log, ...d }) => ({
      ...d,
      lastError: d.lastError === null ? null : webhookAttemptError(d.lastStatusCode, d.lastError === WEBHOOK_REFUSED),
      outcome: d.attempts === 0 ? "waiting" : webhookOutcome(d.lastStatusCode, d.lastError ?? WEBHOOK_TIMED_OUT),
      log: log.map((a) => {
        const outcome = webhookOutcome(a.statusCode, a.error ?? WEBHOOK_TIMED_OUT);
        return { ...a, outcome, error: webhookAttemptError(a.statusCode, outcome === WEBHOOK_REFUSED), durationMs: a.statusCode === null ? null : a.durationMs };
      }),
    })),
  };
}
