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

/** POSTs one body to a resolved target, without following redirects; resolves with the status (or the error). */
export function postJson(target: ResolvedTarget, body: string, headers: Record<string, string>, timeoutMs: number): Promise<AttemptOutcome> {
  const started = Date.now();
  // Connect to the address we checked, whatever DNS says now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      target.url,
      {
        method: "POST",
        lookup: pinned,
        timeout: timeoutMs,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "kappa-mesh-webhooks/1", ...headers },
      },
      (res: IncomingMessage) => {
        // The body is not ours to keep; drain it so the socket is released.
        res.resume();
        res.on("end", () => resolve({ statusCode: res.statusCode ?? null, error: null, durationMs: Date.now() - started }));
        res.on("error", (e) => resolve({ statusCode: res.statusCode ?? null, error: e.message, durationMs: Date.now() - started }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (e) => resolve({ statusCode: null, error: e.message, durationMs: Date.now() - started }));
    req.end(body);
  });
}

export class WebhookSender {
  constructor(
    private readonly db: Db,
    private readonly options: WebhookSenderOptions,
    private readonly log: Logger,
  ) {}

  private async claim(limit: number): Promise<Claimed[]> {
    return this.db.$queryRaw<Claimed[]>`
      UPDATE "WebhookDelivery" AS d SET "leaseUntil" = ${NOW} + make_interval(secs => ${LEASE_MS / 1000})
       WHERE d.id IN (
         SELECT c.id FROM "WebhookDelivery" AS c
          WHERE c.status = 'PENDING' AND c."nextAttemptAt" <= ${NOW} AND (c."leaseUntil" IS NULL OR c."leaseUntil" < ${NOW})
          ORDER BY c."nextAttemptAt"
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d."endpointId", d.kind, d.payload, d.attempts`;
  }

  /** Sends what is due; the number of deliveries attempted. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.options.batchSize ?? 20);
    await Promise.all(claimed.map((d) => this.deliver(d)));
    return claimed.length;
  }

  private async deliver(d: Claimed): Promise<void> {
    const attempt = d.attempts + 1;
    let outcome: AttemptOutcome;
    let refused = false;
    const endpoint = await this.db.webhookEndpoint.findUnique({ where: { id: d.endpointId }, omit: { secretCiphertext: false } });
    if (!endpoint) return; // deleted meanwhile: its deliveries went with it
    try {
      const secret = decryptSecret(this.options.secretsKey, endpoint.secretCiphertext, endpoint.id);
      const payload = d.payload !== null && typeof d.payload === "object" && !Array.isArray(d.payload) ? d.payload : {};
      const link = typeof payload.link === "string" ? new URL(payload.link, this.options.portalUrl).toString() : null;
      const body = JSON.stringify({ ...payload, link });
      const target = await resolveWebhookTarget(endpoint.url, this.options.allowPrivateTargets);
      const signature = signWebhook(secret, Math.floor(Date.now() / 1000), body);
      outcome = await postJson(target, body, { [SIGNATURE_HEADER]: signature, [EVENT_HEADER]: d.kind, [DELIVERY_HEADER]: d.id }, this.options.timeoutMs);
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
  }
}
