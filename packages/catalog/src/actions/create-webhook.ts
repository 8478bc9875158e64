import { randomBytes } from "node:crypto";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";
import { createWebhookInput } from "../notifications/inputs.ts";
import { generateWebhookSecret } from "../notifications/signature.ts";
import { requireDomainPermission } from "../product-access.ts";
import { encryptSecret } from "../secrets.ts";

/** At most this many endpoints per domain: each event is sent to every one of them. */
export const WEBHOOKS_PER_DOMAIN = 10;

/**
 * An owner adds an HTTP endpoint for their domain's events. The signing
 * secret is generated here, sealed under KAPPA_SECRETS_KEY for the worker that
 * signs deliveries, and returned once — it is never shown again.
 */
export async function createWebhook(db: Db, secretsKey: Buffer, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(createWebhookInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireDomainPermission(actor, "webhook:manage", input.domainId, "Only owners of the domain can manage its webhooks.");
    const existing = await tx.webhookEndpoint.count({ where: { domainId: input.domainId } });
    if (existing >= WEBHOOKS_PER_DOMAIN) {
      throw new ConflictError(`A domain can have at most ${WEBHOOKS_PER_DOMAIN} webhooks; remove one first.`, "TOO_MANY_WEBHOOKS");
    }
    const id = `wh${randomBytes(12).toString("hex")}`;
    const secret = generateWebhookSecret();
    const webhook = await tx.webhookEndpoint.create({
      data: {
        id,
        domainId: input.domainId,
        url: input.url,
        description: input.description,
        kinds: input.kinds,
        secretCiphertext: encryptSecret(secretsKey, secret, id),
        createdById: actor.id,
      },
    });
    await recordAudit(tx, actor, "webhook.created", "Domain", input.domainId, { webhookId: id, url: input.url, kinds: input.kinds });
    return { webhook, secret };
  });
}
