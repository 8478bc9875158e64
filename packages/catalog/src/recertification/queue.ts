import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { activePolicy } from "../policies/store.ts";
import { scheduleFromPolicy } from "./policy-schedule.ts";
import { recertificationState } from "./schedule.ts";

const GRANTED = ["APPROVED", "ACTIVE"] as const;

/**
 * The recertification list of the actor: every granted subscription of the
 * products they own (governance: all), with its due date, overdue and expiry
 * flags and whether it was used in the last `unusedDays` (the worker's cluster
 * scan). Unused grants come first, then the most overdue.
 */
export async function recertificationQueue(db: Db, actor: Actor, now = new Date()) {
  const governance = hasGlobal(actor, "product:review");
  const owned = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  if (!governance && owned.length === 0) throw new ForbiddenError("Only product owners and governance recertify access.");
  const schedule = scheduleFromPolicy((await activePolicy(db)).document);
  const subs = await db.subscription.findMany({
    where: { status: { in: [...GRANTED] }, ...(governance ? {} : { product: { domainId: { in: owned } } }) },
    include: {
      product: { select: { id: true, name: true, topicName: true, classification: true, domainId: true } },
      serviceAccount: { select: { id: true, name: true } },
      consumingDomain: { select: { slug: true, name: true } },
    },
  });
  const usages = await db.groupTopicUsage.findMany({
    where: { serviceAccountId: { in: subs.map((s) => s.serviceAccountId) }, topic: { in: subs.map((s) => s.product.topicName) } },
    select: { serviceAccountId: true, topic: true, lastActiveAt: true, members: true },
  });
  const since = new Date(now.getTime() - schedule.unusedDays * 24 * 3600_000);
  const items = subs.map((s) => {
    const mine = usages.filter((u) => u.serviceAccountId === s.serviceAccountId && u.topic === s.product.topicName);
    const lastUsedAt = mine.reduce<Date | null>((m, u) => (u.lastActiveAt && (!m || u.lastActiveAt > m) ? u.lastActiveAt : m), null);
    const used = mine.some((u) => u.members > 0) || (lastUsedAt !== null && lastUsedAt >= since);
    return {
      id: s.id,
      product: s.product,
      serviceAccount: s.serviceAccount,
      consumingDomain: s.consumingDomain,
      purpose: s.purpose,
      grantedAt: s.decidedAt ?? s.createdAt,
      certifiedAt: s.certifiedAt,
      expiresAt: s.expiresAt,
      lastUsedAt,
      unused: !used,
      ...recertificationState(s, s.product.classification, schedule, now),
    };
  });
  items.sort((a, b) => Number(b.unused) - Number(a.unused) || a.dueAt.getTime() - b.dueAt.getTime());
  return { schedule, items };
}
