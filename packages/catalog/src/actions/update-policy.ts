import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { jsonValue, parsePolicySource } from "../policies/store.ts";
import { findViolations } from "../policies/violations.ts";
import { cleanString } from "../validation.ts";

export const updatePolicyInput = z.object({
  source: z.string().min(1, "The policy document is empty.").max(200_000, "The policy document may be at most 200000 characters."),
  reason: cleanString("The reason", { multiline: true }).max(2000, "Reason must be at most 2000 characters.").trim().min(5, "Give a reason of at least 5 characters."),
});

/**
 * An admin publishes a new version of the policy document. Every version is
 * kept; the new one is in force at once. Existing products are re-evaluated
 * and the ones now in violation are listed (nothing is changed automatically).
 */
export async function updatePolicy(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(updatePolicyInput, rawInput);
  const document = parsePolicySource(input.source);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "platform:admin")) throw new ForbiddenError("Only platform admins can change the policy.");
    // One writer at a time, so two admins cannot both publish "version n+1".
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(4711001)`;
    const current = await tx.policyVersion.findFirst({ orderBy: { version: "desc" } });
    if (current && current.source === input.source) throw new ValidationError("Nothing to change: this is the policy in force.", { source: ["Identical to the current version."] });
    const version = (current?.version ?? 0) + 1;
    await tx.policyVersion.create({
      data: { version, source: input.source, document: jsonValue(document), reason: input.reason, createdById: actor.id, createdByEmail: actor.email },
    });
    const violations = await findViolations(tx, document);
    await recordAudit(tx, actor, "policy.updated", "Policy", String(version), {
      version,
      previous: current?.version ?? null,
      reason: input.reason,
      rules: document.rules.length,
      violations: violations.map((v) => ({ productId: v.productId, topic: v.topicName, failed: v.failed.map((r) => r.ruleId) })),
    });
    return { version, violations };
  });
}
