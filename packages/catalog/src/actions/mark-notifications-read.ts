import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { markNotificationsReadInput } from "../notifications/inputs.ts";
import { requireWriteScope } from "../tokens/scopes.ts";

/** Marks the user's own notifications read (others' ids are simply not matched). */
export async function markNotificationsRead(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(markNotificationsReadInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireWriteScope(actor, "mark notifications read");
    const { count } = await tx.notification.updateMany({
      where: { userId: actor.id, readAt: null, ...(input.all ? {} : { id: { in: (input.ids ?? []).map((id) => BigInt(id)) } }) },
      data: { readAt: new Date() },
    });
    const unread = await tx.notification.count({ where: { userId: actor.id, readAt: null } });
    return { marked: count, unread };
  });
}
