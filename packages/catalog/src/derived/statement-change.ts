/*
 * A derived product's new statement (issue 34, life cycle: "a change of
 * statement is a new version of the product"). The owners propose it; it is
 * planned by Flink like a declaration, and its output schema is checked under
 * the product's compatibility mode against the approved versions: compatible →
 * a reviewed change (DERIVED_STATEMENT) on the same product and topic;
 * incompatible → refused, a new major version (a new product) is needed.
 * Approved, it records the statement version and its output's schema version,
 * and — the job running — queues the worker's STATEMENT command (stop with a
 * savepoint, the new statement restoring it where Flink can). A paused job
 * may get a new statement too, through the same planning, check and review:
 * approved, the job stays paused (nothing is started behind its owners' back)
 * and its next resume runs the new statement from the pause's savepoint by
 * the same rule (the worker's RESUME). Flink is never called here.
 */
import type { DataProduct, Prisma } from "@prisma/client";
import { z } from "zod";
import { resolveDerivedInputs } from "../actions/validate-derived-statement.ts";
import type { Db, Tx } from "../db.ts";
import { CatalogError, ConflictError } from "../errors.ts";
import { topicNameFor } from "../naming.ts";
import { normalizedSchema, schemaFingerprint } from "../schema/canonical.ts";
import { registrySchemaId } from "../schema-registry/registry-ids.ts";
import { checkAgainstApproved, versionsOf, type VersionRow } from "../schema-versions.ts";
import { createJobCommand, jobPhase, OPEN_COMMAND_STATUSES } from "./job-commands.ts";

export const derivedStatementChangeInput = z
  .object({
    statement: z.string({ error: "statement is required." }).trim().min(1, "statement is required.").max(20_000, "statement may be at most 20000 characters."),
    /** Why: shown to the governance reviewer. */
    reason: z.string({ error: "reason is required: say why the statement changes." }).trim().min(1, "reason is required: say why the statement changes.").max(1_000, "reason may be at most 1000 characters."),
  })
  .strict();

/** What a DERIVED_STATEMENT change request carries: the statement before and after, the output schema it gives, the inputs it reads. */
export const derivedStatementPayload = z.object({
  statement: z.string(),
  fromStatement: z.string(),
  fromVersion: z.number().int(),
  toVersion: z.number().int(),
  jobId: z.string().nullable(),
  schema: z.object({
    /** The schema version the output has once approved: the latest approved one when unchanged, else the next. */
    version: z.number().int(),
    changed: z.boolean(),
    definition: z.string(),
    fingerprint: z.string(),
    mode: z.string(),
    checkedVersions: z.array(z.number().int()),
  }),
  fieldChanges: z.array(z.record(z.string(), z.unknown())),
  inputs: z.array(z.object({ productId: z.string(), topicName: z.string() })),
  plan: z.string(),
  /** The job was paused when the change was asked for: approved, it runs on the job's resume (shown to the reviewer). */
  jobPaused: z.boolean().optional(),
});
export type DerivedStatementPayload = z.infer<typeof derivedStatementPayload>;

/**
 * The product's derived row once a statement change may be asked for or
 * applied: ACTIVE, its job running or paused (with its savepoint), nothing
 * else under way. `paused`: the new statement runs on resume, not at once.
 */
export async function requireStatementChangeable(tx: Db | Tx, product: Pick<DataProduct, "id" | "status">) {
  if (product.status !== "ACTIVE") throw new ConflictError(`The product is ${product.status}: only an ACTIVE derived product's statement can change.`, "PRODUCT_NOT_ACTIVE");
  const derived = await tx.derivedProduct.findUniqueOrThrow({ where: { productId: product.id } });
  const phase = jobPhase(derived);
  if (phase !== "RUNNING" && !(phase === "PAUSED" && derived.jobSavepointPath)) {
    const why = phase === "STOPPED" ? `the job was stopped: ${derived.jobStopReason ?? "it must no longer run"}` : phase === "PAUSED" ? "the job is paused without a savepoint to resume from" : "the job is not deployed yet";
    throw new ConflictError(`The statement of a running or paused job changes (its state carried over by a savepoint); ${why}.`, "JOB_NOT_RUNNING");
  }
  const open = await tx.derivedJobCommand.findFirst({ where: { productId: product.id, status: { in: [...OPEN_COMMAND_STATUSES] } } });
  if (open) throw new ConflictError(`A ${open.kind.toLowerCase()} of this job is ${open.status === "PENDING" ? "waiting for the worker" : "under way"}; wait until it is done.`, "JOB_COMMAND_OPEN");
  return { ...derived, paused: phase === "PAUSED" };
}

/**
 * What approving statement version `version` does to the job, in words (the
 * API's `onApproval`, the reviewer's and the job panel's note): the running
 * job is stopped with a savepoint and the new statement started at once; a
 * paused one stays paused until its owners resume it. Either way by one rule.
 */
export function statementChangeOutcome(version: number, paused: boolean): string {
  const rule = "restoring its savepoint where Flink can map the state to the new statement's operators, otherwise without state from the offsets the job's consumer group committed";
  return paused
    ? `The job is paused: once approved, statement version ${version} is recorded and the job stays paused; resuming it runs statement version ${version}, ${rule}.`
    : `Once approved, the worker stops the job with a savepoint and starts statement version ${version}, ${rule}.`;
}

export interface OutputSchemaCheck {
  version: number;
  changed: boolean;
  definition: string;
  fingerprint: string;
  mode: string;
  checkedVersions: number[];
  fieldChanges: Record<string, unknown>[];
}

/**
 * The new statement's output schema against the product's approved versions,
 * under its compatibility mode. Identical to the latest approved one: no new
 * schema version. Compatible: the next version. Incompatible: 422 naming the
 * fields, with the new major version (a new product) it needs.
 */
export async function checkOutputSchema(tx: Db | Tx, product: DataProduct, definition: string): Promise<OutputSchemaCheck> {
  const versions: VersionRow[] = await versionsOf(tx, product.id);
  const approved = versions.filter((v) => v.status === "APPROVED");
  const latest = approved.at(-1);
  if (!latest) throw new ConflictError(`${product.topicName} has no approved schema.`, "NO_APPROVED_SCHEMA");
  const pending = versions.find((v) => v.status === "PENDING");
  if (pending) throw new ConflictError(`Schema version ${pending.version} of the product waits for review; decide it first.`, "SCHEMA_VERSION_PENDING");
  const format = latest.format;
  if (normalizedSchema(latest.definition) === normalizedSchema(definition)) {
    return { version: latest.version, changed: false, definition: latest.definition, fingerprint: schemaFingerprint(format, latest.definition), mode: product.compatibilityMode, checkedVersions: [], fieldChanges: [] };
  }
  const version = (versions.at(-1)?.version ?? 0) + 1;
  const check = checkAgainstApproved(product, format, versions, definition, version);
  if (!check.result.compatible) {
    const fields = [...new Set(check.result.issues.map((i) => i.path).filter((p): p is string => typeof p === "string" && p.length > 0))];
    const domain = await tx.domain.findUniqueOrThrow({ where: { id: product.domainId }, select: { slug: true } });
    const successor = await tx.dataProduct.findUnique({ where: { predecessorId: product.id }, select: { topicName: true } });
    const newMajor = successor ? null : { majorVersion: product.majorVersion + 1, topicName: topicNameFor(domain.slug, product.slug, product.majorVersion + 1) };
    const against = check.result.checkedVersions.map((v) => `v${v}`).join(", ");
    throw new CatalogError(
      "INCOMPATIBLE_OUTPUT_SCHEMA",
      422,
      `The new statement's output schema changed incompatibly: it is not ${check.result.mode} compatible with ${against} (${fields.length === 1 ? "field" : "fields"} ${fields.join(", ")}: ${check.result.issues.map((i) => i.message).join("; ")}). ` +
        `A new major version is needed: declare the statement as a new derived product${newMajor ? ` (${newMajor.topicName})` : successor ? ` (its successor ${successor.topicName} exists already)` : ""}.`,
      { statement: check.result.issues.map((i) => i.message) },
      undefined,
      { mode: check.result.mode, checkedVersions: check.result.checkedVersions, fields, issues: check.result.issues, newMajorVersion: newMajor },
    );
  }
  return {
    version,
    changed: true,
    definition,
    fingerprint: check.fingerprint,
    mode: check.result.mode,
    checkedVersions: check.result.checkedVersions,
    fieldChanges: check.fieldChanges.map((c) => ({ ...c })),
  };
}

/**
 * The number a new statement version gets: one more than any the product
 * had, including a version the worker rolled back (it did not start on Flink,
 * so the product's current version went back below it; its history row stays).
 */
export async function nextStatementVersion(tx: Db | Tx, productId: string, current: number): Promise<number> {
  const kept = await tx.derivedStatementVersion.aggregate({ where: { productId }, _max: { version: true } });
  return Math.max(current, kept._max.version ?? 0) + 1;
}

/**
 * Applies an approved DERIVED_STATEMENT change (the product row locked by the
 * caller): checked again — the statement it replaces is still the product's,
 * the job still runs or is paused, nothing else under way, the output still
 * compatible under the mode in force — then the statement version and (when
 * the output changed) the schema version are recorded, the inputs become the
 * lineage, and, the job running, the worker's STATEMENT command is queued. A
 * paused job (now, whatever it was when asked) gets no command: it stays
 * paused, and the worker's RESUME runs the new statement.
 */
export async function applyStatementChange(
  tx: Tx,
  request: { id: string; productId: string; requestedById: string; payload: Prisma.JsonValue; product: DataProduct },
  decidedBy: { id: string } | null,
): Promise<Record<string, string | number>> {
  const parsed = derivedStatementPayload.safeParse(request.payload);
  if (!parsed.success) throw new CatalogError("VALIDATION_FAILED", 400, "The change request's payload is malformed.");
  const payload = parsed.data;
  const derived = await requireStatementChangeable(tx, request.product);
  // The domain must still hold an approved subscription to every input (403 naming the one it lost).
  await resolveDerivedInputs(tx, request.product.domainId, payload.statement);
  if (derived.statement !== payload.fromStatement || derived.statementVersion !== payload.fromVersion) {
    throw new ConflictError(`The product's statement changed since this request (it is version ${derived.statementVersion} now); ask again from the current statement.`, "STATEMENT_CHANGED");
  }
  // The mode, or the approved versions, may have changed while it waited.
  const schema = await checkOutputSchema(tx, request.product, payload.schema.definition);
  let schemaVersion = schema.version;
  if (schema.changed) {
    const created = await tx.schemaVersion.create({
      data: {
        productId: request.productId,
        version: schema.version,
        format: "JSON_SCHEMA",
        definition: schema.definition,
        status: "APPROVED",
        fingerprint: schema.fingerprint,
        proposedById: request.requestedById,
        decidedById: decidedBy?.id ?? null,
        decidedAt: new Date(),
        decisionReason: `Output of statement version ${payload.toVersion} (change request ${request.id}).`,
        compatibility: { mode: schema.mode, checkedVersions: schema.checkedVersions, issues: [], stricter: [] },
        schemaId: await registrySchemaId(tx, "JSON_SCHEMA", schema.definition),
      },
    });
    schemaVersion = created.version;
  }
  const history = await tx.derivedStatementVersion.count({ where: { productId: request.productId } });
  if (history === 0) {
    const previous = await tx.schemaVersion.findFirst({ where: { productId: request.productId, status: "APPROVED", version: { lt: schema.changed ? schemaVersion : schemaVersion + 1 } }, orderBy: { version: "desc" }, select: { version: true } });
    // The declared statement, kept from the first change on.
    await tx.derivedStatementVersion.create({ data: { productId: request.productId, version: derived.statementVersion, statement: derived.statement, schemaVersion: schema.changed ? (previous?.version ?? null) : schemaVersion } });
  }
  const toVersion = await nextStatementVersion(tx, request.productId, derived.statementVersion);
  await tx.derivedStatementVersion.create({
    data: { productId: request.productId, version: toVersion, statement: payload.statement, schemaVersion, changeRequestId: request.id, requestedById: request.requestedById, approvedById: decidedBy?.id ?? null },
  });
  await tx.derivedProduct.update({ where: { productId: request.productId }, data: { statement: payload.statement, statementVersion: toVersion } });
  await tx.productInput.deleteMany({ where: { productId: request.productId } });
  await tx.productInput.createMany({ data: payload.inputs.map((i) => ({ productId: request.productId, inputProductId: i.productId })) });
  const outcome = { statementVersion: toVersion, schemaVersion, schemaChanged: schema.changed ? "yes" : "no", onApproval: statementChangeOutcome(toVersion, derived.paused) };
  if (derived.paused) return { ...outcome, job: "paused: the new statement runs on resume" };
  const command = await createJobCommand(tx, null, request.productId, { kind: "STATEMENT", changeRequestId: request.id, fromJobId: derived.jobId, requestedById: request.requestedById, statementVersion: toVersion });
  return { ...outcome, commandId: command.id };
}
