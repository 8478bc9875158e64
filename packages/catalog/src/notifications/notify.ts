import type { Prisma } from "@prisma/client";
import type { Tx } from "../db.ts";
import type { NotificationKind } from "./kinds.ts";

/*
 * notify(tx, …) records one event and fans it out inside the caller's
 * transaction: a Notification per recipient (the in-app centre; the worker
 * e-mails it when SMTP_URL is set) and a WebhookDelivery per active endpoint
 * of the domains concerned (the worker signs and sends it, with retries). The
 * decision and its notifications commit together, so nobody hears of a
 * decision that rolled back, and no decision goes unannounced.
 */

export interface NotificationAudience {
  /** Every member (owners and members) of these domains. */
  domainMembers?: readonly string[];
  /** Only the owners of these domains. */
  domainOwners?: readonly string[];
  /** These users by id. */
  users?: readonly string[];
  /** Every governance reviewer. */
  governance?: boolean;
  /** Every platform admin. */
  admins?: boolean;
}

export interface NotificationInput {
  kind: NotificationKind;
  title: string;
  body?: string;
  /** A portal path such as `/products/<id>`. */
  link?: string;
  entityType: string;
  entityId: string;
  audience: NotificationAudience;
  /** People who should not hear of it (usually the person who did it). */
  exclude?: readonly (string | null | undefined)[];
  /** Domains whose webhooks receive the event; defaults to the audience's domains. */
  webhookDomains?: readonly string[];
  data?: Prisma.InputJsonObject;
}

export interface NotifyResult {
  eventId: string;
  recipients: number;
  webhookDeliveries: number;
}

/** The JSON body a webhook receives (and what the delivery log stores). */
export interface WebhookPayload {
  id: string;
  kind: string;
  createdAt: string;
  title: string;
  body: string;
  /** Portal path; the worker makes it absolute with KAPPA_PORTAL_URL. */
  link: string | null;
  entity: { type: string; id: string };
  data: Prisma.InputJsonObject;
}

async function recipientIds(tx: Tx, audience: NotificationAudience): Promise<Set<string>> {
  const ids = new Set<string>(audience.users ?? []);
  const members = [...(audience.domainMembers ?? [])];
  const owners = [...(audience.domainOwners ?? [])];
  if (members.length > 0 || owners.length > 0) {
    const rows = await tx.membership.findMany({
      where: {
        OR: [
          ...(members.length > 0 ? [{ domainId: { in: members } }] : []),
          ...(owners.length > 0 ? [{ domainId: { in: owners }, role: "OWNER" as const }] : []),
        ],
      },
      select: { userId: true },
    });
    for (const r of rows) ids.add(r.userId);
  }
  const roles = [...(audience.governance ? ["GOVERNANCE" as const] : []), ...(audience.admins ? ["ADMIN" as const] : [])];
  if (roles.length > 0) {
    for (const u of await tx.user.findMany({ where: { globalRole: { in: roles } }, select: { id: true } })) ids.add(u.id);
  }
  return ids;
}

export async function notify(tx: Tx, input: NotificationInput): Promise<NotifyResult> {
  const recipients = await recipientIds(tx, input.audience);
  for (const id of input.exclude ?? []) if (id) recipients.delete(id);
  const domains = [...new Set(input.webhookDomains ?? [...(input.audience.domainMembers ?? []), ...(input.audience.domainOwners ?? [])])];
  const data = input.data ?? {};
  const event = await tx.notificationEvent.create({
    data: {
      kind: input.kind,
      title: input.title,
      body: input.body ?? "",
      link: input.link ?? null,
      entityType: input.entityType,
      entityId: input.entityId,
      domainIds: domains,
      data,
    },
  });
  if (recipients.size > 0) {
    await tx.notification.createMany({ data: [...recipients].map((userId) => ({ eventId: event.id, userId })), skipDuplicates: true });
  }
  let webhookDeliveries = 0;
  if (domains.length > 0) {
    const endpoints = await tx.webhookEndpoint.findMany({
      where: { domainId: { in: domains }, active: true, OR: [{ kinds: { isEmpty: true } }, { kinds: { has: input.kind } }] },
      select: { id: true },
    });
    if (endpoints.length > 0) {
      const payload = webhookPayload(event);
      await tx.webhookDelivery.createMany({ data: endpoints.map((e) => ({ endpointId: e.id, eventId: event.id, kind: input.kind, payload })) });
      webhookDeliveries = endpoints.length;
    }
  }
  return { eventId: event.id, recipients: recipients.size, webhookDeliveries };
}

export function webhookPayload(event: {
  id: string;
  kind: string;
  createdAt: Date;
  title: string;
  body: string;
  link: string | null;
  entityType: string;
  entityId: string;
  data: Prisma.JsonValue;
}): Prisma.InputJsonObject & WebhookPayload {
  const data = event.data !== null && typeof event.data === "object" && !Array.isArray(event.data) ? (event.data as Prisma.InputJsonObject) : {};
  return {
    id: event.id,
    kind: event.kind,
    createdAt: event.createdAt.toISOString(),
    title: event.title,
    body: event.body,
    link: event.link,
    entity: { type: event.entityType, id: event.entityId },
    data,
  };
}
