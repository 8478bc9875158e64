import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { listNotificationsInput } from "../notifications/inputs.ts";

/** The signed-in user's notification centre: newest first, with the unread count for the bell. */
export async function listNotifications(db: Db, actor: Actor, rawInput: unknown = {}) {
  const input = parseInput(listNotificationsInput, rawInput);
  const where = {
    userId: actor.id,
    ...(input.unread ? { readAt: null } : {}),
    ...(input.before ? { id: { lt: BigInt(input.before) } } : {}),
  };
  const [rows, unread] = await Promise.all([
    db.notification.findMany({ where, include: { event: true }, orderBy: { id: "desc" }, take: input.limit + 1 }),
    db.notification.count({ where: { userId: actor.id, readAt: null } }),
  ]);
  const page = rows.slice(0, input.limit);
  return {
    notifications: page.map((n) => ({
      id: n.id,
      kind: n.event.kind,
      title: n.event.title,
      body: n.event.body,
      link: n.event.link,
      entityType: n.event.entityType,
      entityId: n.event.entityId,
      createdAt: n.createdAt,
      readAt: n.readAt,
    })),
    unread,
    nextBefore: rows.length > input.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
