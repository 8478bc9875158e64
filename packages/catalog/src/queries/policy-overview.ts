import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { activePolicy } from "../policies/store.ts";
import { findViolations } from "../policies/violations.ts";

function requireGovernanceView(actor: Actor): void {
  if (!hasGlobal(actor, "product:review") && !hasGlobal(actor, "platform:admin")) {
    throw new ForbiddenError("Only governance reviewers and platform admins see the policy's history and violations.");
  }
}

/** The policy in force for any signed-in user (forms evaluate it as the user types). */
export async function currentPolicy(db: Db) {
  const policy = await activePolicy(db);
  const row = await db.policyVersion.findUniqueOrThrow({ where: { version: policy.version }, select: { source: true, createdAt: true, createdByEmail: true, reason: true } });
  return { version: policy.version, document: policy.document, source: row.source, createdAt: row.createdAt, createdByEmail: row.createdByEmail, reason: row.reason };
}

/** The governance page: current version, every version's metadata, products now in violation. */
export async function policyOverview(db: Db, actor: Actor) {
  requireGovernanceView(actor);
  const current = await currentPolicy(db);
  const [versions, violations] = await Promise.all([
    db.policyVersion.findMany({ orderBy: { version: "desc" }, select: { version: true, reason: true, createdByEmail: true, createdAt: true } }),
    findViolations(db, current.document),
  ]);
  return { current, versions, violations, canEdit: hasGlobal(actor, "platform:admin") };
}

/** One version's YAML and the one before it, for the history diff. */
export async function policyVersionDetail(db: Db, actor: Actor, version: number) {
  requireGovernanceView(actor);
  const [row, previous] = await Promise.all([
    db.policyVersion.findUnique({ where: { version } }),
    db.policyVersion.findUnique({ where: { version: version - 1 } }),
  ]);
  if (!row) throw new NotFoundError("Policy version", String(version));
  return { version: row.version, source: row.source, reason: row.reason, createdByEmail: row.createdByEmail, createdAt: row.createdAt, previousSource: previous?.source ?? null };
}
