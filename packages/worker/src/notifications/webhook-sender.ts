/*
 * Sends the webhook outbox (WebhookDelivery rows written by the catalog's
 * notify()). Each delivery is leased with FOR UPDATE SKIP LOCKED, so several
 * workers share the outbox without sending one delivery twice at once; it is
 * POSTed as JSON signed with the endpoint's secret (HMAC-SHA256, see the
 * catalog's signature.ts), and every attempt lands in the delivery log with
 * its outcome — for the owner only delivered / refused by the platform /
 * failed with HTTP n / timed out (the catalog's webhook-outcome.ts; the
 * transport detail goes to the worker's log only). A non-2xx answer or a network error retries with
 * capped exponential backoff until the attempts run out (410 Gone stops at
 * once). Delivery is at least once: receivers dedupe on X-Kappa-Delivery.
 *
 * One endpoint must not hold up the others (issue 30, finding 3: an endpoint
 * that sent its headers and then one byte every 3 s held every domain's
 * webhooks and e-mails for 93 s):
 *  - an attempt has one deadline, timeoutMs, for everything — resolving the
 *    host, connecting, TLS, sending and the answer's status line — not a
 *    socket-idle timeout a trickle of bytes keeps resetting;
 *  - the answer's body is never read: the status decides, and the response
 *    is destroyed as soon as it is known;
 *  - a poll starts its deliveries and returns; each endpoint's deliveries run
 *    one after another on their own, so a slow endpoint holds only itself
 *    (and the next poll skips it while it is busy);
 *  - an endpoint whose attempt failed (no answer, or not 2xx) is left alone
 *    for a backoff that grows with its consecutive failures: its other
 *    deliveries wait instead of each trying the same dead endpoint. The
 *    backoff is this worker's memory (a second worker may try once more).
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Prisma } from "@prisma/client";
import { decryptSecret, DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook, webhookAttemptError, type Db } from "@kappa/catalog";
import { errorMessage, type Logger } from "../log.ts";
import { backoffDelayMs } from "../reconcile/diff.ts";
import { resolveWebhookTarget, WebhookTargetError, type ResolvedTarget } from "./webhook-target.ts";

export interface WebhookSenderOptions {
  secretsKey: Buffer;
  portalUrl: string;
  timeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  allowPrivateTargets: boolean;
  /** Deliveries sent per poll. */
  batchSize?: number;
}

interface Claimed {
  id: string;
  endpointId: string;
  kind: string;
  payload: Prisma.JsonValue;
  attempts: number;
}

const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
const LEASE_MS = 60_000;

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * POSTs one body to a resolved target, without following redirects; resolves
 * with the status once the answer's status line is in (the body is not read),
 * or with the error. `deadline` (epoch ms) bounds the whole attempt.
 */
export function postJson(target: ResolvedTarget, body: string, headers: Record<string, string>, deadline: number): Promise<AttemptOutcome> {
  const started = Date.now();
  // Connect to the address we checked, whatever DNS says now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Date.now() - started });
    };
    const req = send(
      target.url,
      {
        method: "POST",
        lookup: pinned,
        // No pooled sockets: each attempt has its own connection, destroyed when it ends.
        agent: false,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "kappa-mesh-webhooks/1", ...headers },
      },
      (res: IncomingMessage) => {
        finish({ statusCode: res.statusCode ?? null, error: null });
        // The body is not ours to read: the status said everything.
        res.destroy();
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `no answer within the attempt's deadline` });
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    req.on("error", (e) => finish({ statusCode: null, error: e.message }));
    req.end(body);
  });
}

/** Rejects when `deadline` (epoch ms) passes first. */
function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error("no answer within the attempt's deadline (resolving the host)")), Math.max(0, deadline - Date.now()));
    }),
  ]).finally(() => clearTimeout(timer));
}

export class WebhookSender {
  /** Endpoints with an attempt under way in this worker (each runs its deliveries one at a time). */
  private readonly busy = new Map<string, Promise<void>>();
  /** Per endpoint: consecutive failed attempts and when the next may start. */
  private readonly backoff = new Map<string, { failures: number; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly options: WebhookSenderOptions,
    private readonly log: Logger,
  ) {}

  private async claim(limit: number, skipEndpoints: string[]): Promise<Claimed[]> {
    return this.db.$queryRaw<Claimed[]>`
      UPDATE "WebhookDelivery" AS d SET "leaseUntil" = ${NOW} + make_interval(secs => ${LEASE_MS / 1000})
       WHERE d.id IN (
         SELECT c.id FROM "WebhookDelivery" AS c
          WHERE c.status = 'PENDING' AND c."nextAttemptAt" <= ${NOW} AND (c."leaseUntil" IS NULL OR c."leaseUntil" < ${NOW})
            AND NOT (c."endpointId" = ANY(${skipEndpoints}::text[]))
          ORDER BY c."nextAttemptAt"
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d."endpointId", d.kind, d.payload, d.attempts`;
  }

  /**
   * Starts what is due and returns without waiting for it: the number of
   * deliveries claimed. Endpoints busy or backing off are skipped.
   */
  async runOnce(): Promise<number> {
    const now = Date.now();
    const skip = [...this.busy.keys(), ...[...this.backoff].filter(([, b]) => b.until > now).map(([id]) => id)];
    const limit = (this.options.batchSize ?? 20) - this.busy.size;
    if (limit <= 0) return 0;
    const claimed = await this.claim(limit, skip);
    const byEndpoint = new Map<string, Claimed[]>();
    for (const d of claimed) byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
    // An endpoint's turn must end within the lease (each attempt may take timeoutMs): the rest go back at once.
    const perEndpoint = Math.max(1, Math.floor(LEASE_MS / this.options.timeoutMs) - 1);
    const handBack = [...byEndpoint.values()].flatMap((list) => list.splice(perEndpoint).map((d) => d.id));
    if (handBack.length > 0) await this.db.webhookDelivery.updateMany({ where: { id: { in: handBack } }, data: { leaseUntil: null } });
    for (const [endpointId, deliveries] of byEndpoint) {
      const run = this.deliverInTurn(endpointId, deliveries)
        .catch((error: unknown) => this.log.warn("webhook deliveries of an endpoint failed", { endpoint: endpointId, error: errorMessage(error) }))
        .finally(() => this.busy.delete(endpointId));
      this.busy.set(endpointId, run);
    }
    return claimed.length - handBack.length;
  }

  /** Waits for every delivery under way (stopping, and tests). */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.all(this.busy.values());
  }

  /** One endpoint's deliveries, one at a time; after a failed attempt the rest are handed back for after its backoff. */
  private async deliverInTurn(endpointId: string, deliveries: Claimed[]): Promise<void> {
    for (const [i, d] of deliveries.entries()) {
      const ok = await this.deliver(d);
      const previous = this.backoff.get(endpointId)?.failures ?? 0;
      if (ok) {
        this.backoff.delete(endpointId);
        continue;
      }
      const failures = previous + 1;
      this.backoff.set(endpointId, { failures, until: Date.now() + backoffDelayMs(failures, this.options.backoffBaseMs, this.options.backoffMaxMs) });
      const rest = deliveries.slice(i + 1).map((r) => r.id);
      if (rest.length > 0) await this.db.webhookDelivery.updateMany({ where: { id: { in: rest } }, data: { leaseUntil: null } });
      return;
    }
  }

  /** One attempt; whether it was delivered (2xx). */
  private async deliver(d: Claimed): Promise<boolean> {
    const attempt = d.attempts + 1;
    let outcome: AttemptOutcome;
    let refused = false;
    const endpoint = await this.db.webhookEndpoint.findUnique({ where: { id: d.endpointId }, omit: { secretCiphertext: false } });
    if (!endpoint) return true; // deleted meanwhile: its deliveries went with it
    const deadline = Date.now() + this.options.timeoutMs;
    try {
      const secret = decryptSecret(this.options.secretsKey, endpoint.secretCiphertext, endpoint.id);
      const payload = d.payload !== null && typeof d.payload === "object" && !Array.isArray(d.payload) ? d.payload : {};
      const link = typeof payload.link === "string" ? new URL(payload.link, this.options.portalUrl).toString() : null;
      const body = JSON.stringify({ ...payload, link });
      const target = await beforeDeadline(resolveWebhookTarget(endpoint.url, this.options.allowPrivateTargets), deadline);
      const signature = signWebhook(secret, Math.floor(Date.now() / 1000), body);
      outcome = await postJson(target, body, { [SIGNATURE_HEADER]: signature, [EVENT_HEADER]: d.kind, [DELIVERY_HEADER]: d.id }, deadline);
    } catch (error) {
      refused = error instanceof WebhookTargetError;
      outcome = { statusCode: null, error: errorMessage(error), durationMs: 0 };
    }
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const gone = outcome.statusCode === 410;
    const final = ok || gone || attempt >= this.options.maxAttempts;
    // What the owner may see; the transport detail (outcome.error) only in the log below.
    const error = webhookAttemptError(outcome.statusCode, refused);
    const delay = backoffDelayMs(attempt, this.options.backoffBaseMs, this.options.backoffMaxMs);
    await this.db.$transaction([
      this.db.webhookAttempt.create({ data: { deliveryId: d.id, attempt, statusCode: outcome.statusCode, error, durationMs: outcome.durationMs } }),
      this.db.$executeRaw`
        UPDATE "WebhookDelivery" SET attempts = ${attempt}, "lastStatusCode" = ${outcome.statusCode}, "lastError" = ${error}, "leaseUntil" = NULL,
               status = ${ok ? "DELIVERED" : final ? "FAILED" : "PENDING"},
               "deliveredAt" = ${ok ? Prisma.sql`${NOW}` : Prisma.sql`NULL`},
               "nextAttemptAt" = ${NOW} + make_interval(secs => ${final ? 0 : delay / 1000})
         WHERE id = ${d.id}`,
    ]);
    if (ok) this.log.debug("webhook delivered", { delivery: d.id, kind: d.kind, status: outcome.statusCode });
    else this.log.warn(final ? "webhook delivery failed for good" : "webhook delivery failed; will retry", { delivery: d.id, endpoint: d.endpointId, attempt, status: outcome.statusCode, error: outcome.error?.slice(0, 1000) ?? error });
    return ok || gone;
  }
}
