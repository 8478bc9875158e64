/*
 * One handler per task kind. Each one calls the per-entity reconcile functions
 * with what the catalog says *now* (the payload only names the entity): a task
 * retried an hour later applies the current decision, and a grant task for a
 * subscription that was revoked meanwhile grants nothing.
 */
import { z } from "zod";
import type { LeasedTask } from "./runner.ts";
import { accountIdForPrincipal, ensureCredentials, reconcilePrincipalAcls, reconcileProductTopic, type Change, type ReconcileContext } from "../reconcile/entities.ts";

/** The task can never succeed as written (unknown kind, malformed payload): fail it now instead of retrying. */
export class NonRetryableError extends Error {
  override name = "NonRetryableError";
}

/** Task kind for a credential rotation (written by requestCredentialRotation). */
export const ROTATE_CREDENTIALS = "ROTATE_SERVICE_ACCOUNT_CREDENTIALS";

const ensureAccountPayload = z.object({ serviceAccountId: z.string().min(1) });
const producerAclPayload = z.object({ principal: z.string().startsWith("User:") });
const rotatePayload = z.object({ serviceAccountId: z.string().min(1), requestedAt: z.iso.datetime() });

function parse<T>(schema: z.ZodType<T>, task: LeasedTask): T {
  const result = schema.safeParse(task.payload);
  if (!result.success) throw new NonRetryableError(`malformed ${task.kind} payload: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return result.data;
}

async function subscriptionAccount(ctx: ReconcileContext, subscriptionId: string): Promise<string> {
  const sub = await ctx.db.subscription.findUnique({ where: { id: subscriptionId }, select: { serviceAccountId: true } });
  if (!sub) throw new NonRetryableError(`subscription ${subscriptionId} does not exist`);
  return sub.serviceAccountId;
}

export async function runTaskHandler(ctx: ReconcileContext, task: LeasedTask): Promise<Change[]> {
  switch (task.kind) {
    case "CREATE_TOPIC":
      return reconcileProductTopic(ctx, task.entityId);
    case "ENSURE_SERVICE_ACCOUNT":
      return ensureCredentials(ctx, parse(ensureAccountPayload, task).serviceAccountId);
    case "GRANT_PRODUCER_ACL":
      return reconcilePrincipalAcls(ctx, await accountIdForPrincipal(ctx.db, parse(producerAclPayload, task).principal));
    case "GRANT_SUBSCRIPTION_ACL": {
      const accountId = await subscriptionAccount(ctx, task.entityId);
      // The catalog queues no separate step for a subscriber's credentials:
      // the grant is useless without them, so it issues them first.
      const issued = await ensureCredentials(ctx, accountId);
      return [...issued, ...(await reconcilePrincipalAcls(ctx, accountId))];
    }
    case "REVOKE_SUBSCRIPTION_ACL":
      return reconcilePrincipalAcls(ctx, await subscriptionAccount(ctx, task.entityId));
    case ROTATE_CREDENTIALS: {
      const payload = parse(rotatePayload, task);
      return ensureCredentials(ctx, payload.serviceAccountId, { rotateIssuedBefore: new Date(payload.requestedAt) });
    }
    default:
      throw new NonRetryableError(`unknown task kind ${task.kind}`);
  }
}
