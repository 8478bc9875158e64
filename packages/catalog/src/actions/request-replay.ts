import type { Prisma } from "@prisma/client";
import { inTransaction, loadActingActor, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";
import type { RecordSource } from "../records/source.ts";
import { planReplay } from "../replay/plan.ts";
import { TASK_KINDS } from "../tasks.ts";

/**
 * POST /subscriptions/:id/replay. With `dryRun`, the preview only (`records`
 * in total and per partition, tiers, time estimate). Otherwise the request is
 * recorded with the offsets the preview resolved, and a task has the worker
 * apply it — an admin operation the portal never performs — once it has
 * checked again that the group has no members.
 */
export async function requestReplay(db: Db, acting: ActingUser, subscriptionId: string, rawInput: unknown, source: RecordSource) {
  // The preview reads the cluster; the transaction only records the decision.
  const plan = await planReplay(db, await loadActingActor(db, acting), subscriptionId, rawInput, source);
  if (plan.dryRun) return { ...plan, dryRun: true as const, records: plan.totals.records, replay: null };
  if (plan.blocked) throw new ConflictError(plan.blocked, "GROUP_ACTIVE");
  return inTransaction(db, acting, async (tx, actor) => {
    // Re-checked in the transaction: the subscription may have ended since the preview.
    const again = await planReplay(tx, actor, subscriptionId, rawInput, source);
    if (again.blocked) throw new ConflictError(again.blocked, "GROUP_ACTIVE");
    const replay = await tx.replayRequest.create({
      data: {
        subscriptionId,
        groupId: again.groupId,
        topic: again.topic,
        spec: again.spec,
        targets: again.targets,
        preview: JSON.parse(JSON.stringify({ totals: again.totals, partitions: again.partitions, rate: again.rate, etaSeconds: again.etaSeconds, notes: again.notes })) as Prisma.InputJsonObject,
        requestedById: actor.id,
      },
    });
    await tx.provisioningTask.create({ data: { kind: TASK_KINDS.RESET_CONSUMER_GROUP_OFFSETS, payload: { replayId: replay.id, groupId: again.groupId }, entityType: "ReplayRequest", entityId: replay.id, step: 1 } });
    await recordAudit(tx, actor, "subscription.replay-requested", "Subscription", subscriptionId, { replayId: replay.id, group: again.groupId, to: again.spec as Prisma.InputJsonValue, records: again.totals.records, targets: again.targets });
    return { ...again, dryRun: false as const, records: again.totals.records, replay };
  });
}
