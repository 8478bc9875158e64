import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import { MAX_CONTRACT_LENGTH } from "../contracts/from-contract.ts";
import { planContract, type PlanItem } from "../contracts/plan.ts";
import type { Db, Tx } from "../db.ts";
import { CatalogError, ValidationError } from "../errors.ts";
import { cleanString, futureDate } from "../validation.ts";
import { changeDerivedStatement } from "./change-derived-statement.ts";
import { proposeSchemaVersion } from "./propose-schema-version.ts";
import { publishMajorVersion } from "./publish-major-version.ts";
import { registerProductInTx } from "./register-product.ts";
import { setQualityRulesInTx } from "./set-quality-rules.ts";
import { submitForReviewInTx } from "./submit-for-review.ts";
import { updateProductInTx } from "./update-product.ts";
import type { FlinkSettings } from "./validate-derived-statement.ts";

export const contractFilesInput = z.object({
  contracts: z
    .array(
      z.object({
        /** The file's text: ODCS v3 as YAML or JSON. */
        content: z.string().min(1, "The contract is empty.").max(MAX_CONTRACT_LENGTH, `A contract may be at most ${MAX_CONTRACT_LENGTH} characters.`),
        /** Where it came from, shown on the product page ("contracts/orders.yaml @ git@host:org/repo abc123"). */
        source: cleanString("The source").max(500, "The source may be at most 500 characters.").trim().optional(),
      }),
    )
    .min(1, "Send at least one contract.")
    .max(100, "At most 100 contracts per request."),
  /**
   * A file whose change needs a new major version is applied only with this
   * set (`kappa apply --new-major-version`); without it the file is refused
   * with NEW_MAJOR_VERSION_NOT_CONFIRMED and nothing changes.
   */
  allowNewMajorVersion: z.boolean({ message: "allowNewMajorVersion is true or false." }).optional(),
  /**
   * When a file needs a new major version: the sunset the current one gets
   * when the new one is approved (default: the policy's deprecation notice,
   * counted from the approval).
   */
  sunsetAt: futureDate("sunsetAt is a date (YYYY-MM-DD or an ISO date-time).", "sunsetAt must be in the future.").optional(),
});
export type ContractFilesInput = z.input<typeof contractFilesInput>;

export interface AppliedItem extends PlanItem {
  applied: boolean;
  /** Set when applying failed: the refusal's code and message (policy refusals carry their rule ids). */
  refusal?: { code: string; message: string; fields?: Record<string, string[]>; details?: Record<string, unknown> };
}

/** Plans every contract (read-only): what `kappa plan` shows. */
export async function planContracts(db: Db, acting: ActingUser, rawInput: unknown): Promise<{ items: PlanItem[] }> {
  const input = parseInput(contractFilesInput, rawInput);
  const items: PlanItem[] = [];
  for (const file of input.contracts) {
    items.push(await inTransaction(db, acting, (tx, actor) => planContract(tx, actor, file.content, file.source ?? null)));
  }
  return { items };
}

const METADATA = ["description", "tags", "freshnessSeconds", "availabilityPct", "contactEmail"] as const;

/**
 * `kappa apply` / `POST /api/v1/contracts`: each contract is planned and
 * carried out in its own transaction, through the same actions as the form
 * (validation, policies, review, provisioning). Applying twice is a no-op:
 * the second plan finds nothing to change. `flink`: where a derived product's
 * new statement is planned (the portal's FLINK_SQL_GATEWAY_URL; without it
 * such a file is refused with 503 NOT_CONFIGURED, as the form's change is).
 */
export async function applyContracts(db: Db, acting: ActingUser, rawInput: unknown, flink: FlinkSettings | null = null): Promise<{ items: AppliedItem[] }> {
  const input = parseInput(contractFilesInput, rawInput);
  const items: AppliedItem[] = [];
  for (const file of input.contracts) {
    const source = file.source ?? "contract";
    try {
      const plan = await inTransaction(db, acting, (tx, actor) => planContract(tx, actor, file.content, source));
      if (plan.action === "skipped") {
        // Another domain's file in the folder: reported, never applied, not a failure.
        items.push({ ...plan, applied: false });
      } else if (plan.action === "new-major-version" && !input.allowNewMajorVersion) {
        items.push({
          ...plan,
          applied: false,
          refusal: {
            code: "NEW_MAJOR_VERSION_NOT_CONFIRMED",
            message: `This file needs a new major version (new topic ${plan.targetTopic ?? ""}); nothing was changed. Apply it with --new-major-version (API: "allowNewMajorVersion": true) to create it in review; ${plan.topic ?? "the current version"} stays as it is until the new one is approved.`,
          },
        });
      } else if (plan.action === "new-schema-version" || plan.action === "new-major-version") {
        items.push(await applyEvolution(db, acting, plan, input.sunsetAt));
      } else if (plan.action === "update" && plan.errors.length === 0 && plan.changes.some((c) => c.field === "derivedStatement")) {
        items.push(await applyStatementChange(db, acting, plan, flink));
      } else {
        items.push(await inTransaction(db, acting, (tx, actor) => applyOne(tx, actor, file.content, source)));
      }
    } catch (error) {
      // The plan again, outside the rolled-back transaction, so the answer still shows the diff.
      const plan = await inTransaction(db, acting, (tx, actor) => planContract(tx, actor, file.content, file.source ?? null));
      // A refusal (validation, policy, permission, state) is this file's result; anything else is ours.
      if (!(error instanceof CatalogError)) throw error;
      items.push({ ...plan, applied: false, refusal: { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}), ...(error.details ? { details: error.details } : {}) } });
    }
  }
  return { items };
}

/**
 * A schema change of a live product goes through schema governance's own
 * actions: a compatible one is proposed for review, a breaking one (or a topic
 * setting that cannot change) becomes the next major version in review, with
 * everything the file says — metadata, SLA, topic settings — and the current
 * version untouched until that one is approved. Metadata changes that come
 * with a compatible schema are applied as an edit.
 */
async function applyEvolution(db: Db, acting: ActingUser, plan: PlanItem, sunsetAt: Date | undefined): Promise<AppliedItem> {
  const d = plan.desired;
  if (!d || !plan.productId) throw new ValidationError("The contract cannot be applied.");
  const productId = plan.productId;
  if (plan.action === "new-schema-version") {
    const metadata = Object.fromEntries(plan.changes.filter((c) => (METADATA as readonly string[]).includes(c.field)).map((c) => [c.field, c.to]));
    await proposeSchemaVersion(db, acting, productId, { definition: d.schema.definition });
    if (Object.keys(metadata).length > 0) await inTransaction(db, acting, (tx, actor) => updateProductInTx(tx, actor, productId, metadata, { contractSource: plan.source ?? "contract" }));
    if (plan.changes.some((c) => RULE_FIELDS.has(c.field))) await inTransaction(db, acting, (tx, actor) => setQualityRulesInTx(tx, actor, productId, { rules: d.qualityRules, encryptPii: d.encryptPii, reason: contractReason(plan) }));
    return { ...plan, applied: true };
  }
  const next = await publishMajorVersion(
    db,
    acting,
    productId,
    { definition: d.schema.definition, ...(sunsetAt ? { sunsetAt } : {}), reason: `Contract ${plan.contractId}: ${plan.schema.compatible === false ? "breaking schema change" : `${plan.changes.map((c) => c.field).join(", ")} changed`}` },
    {
      format: d.schema.format,
      contractSource: plan.source ?? "contract",
      settings: productSettings(d),
      quality: { rules: d.qualityRules, encryptPii: d.encryptPii },
    },
  );
  return { ...plan, productId: next.id, topic: next.topicName, status: next.status, applied: true };
}

/** Plan changes that apply as one rules change (QUALITY_RULES): the CEL rules and field-level encryption. */
const RULE_FIELDS = new Set(["qualityRules", "encryptPii"]);

/**
 * A derived product's new statement from its contract: asked for through the same action as the product page's
 * "Change statement" (Flink plans it, the output schema is checked against the product's, governance reviews the
 * change request), with the contract as its reason; the file's metadata and quality-rule changes follow as in any
 * update. A paused job's new statement runs on its resume (said in the notes). A refusal (Flink's error, an incompatible output, a job stopped or not deployed) leaves everything as it was.
 */
async function applyStatementChange(db: Db, acting: ActingUser, plan: PlanItem, flink: FlinkSettings | null): Promise<AppliedItem> {
  const d = plan.desired;
  if (!d || !plan.productId || d.derivedStatement === null) throw new ValidationError("The contract cannot be applied.");
  const productId = plan.productId;
  const asked = await changeDerivedStatement(db, acting, productId, { statement: d.derivedStatement, reason: contractReason(plan) }, flink);
  const metadata = Object.fromEntries(plan.changes.filter((c) => (METADATA as readonly string[]).includes(c.field)).map((c) => [c.field, c.to]));
  if (Object.keys(metadata).length > 0) await inTransaction(db, acting, (tx, actor) => updateProductInTx(tx, actor, productId, metadata, { contractSource: plan.source ?? "contract" }));
  if (plan.changes.some((c) => RULE_FIELDS.has(c.field))) await inTransaction(db, acting, (tx, actor) => setQualityRulesInTx(tx, actor, productId, { rules: d.qualityRules, encryptPii: d.encryptPii, reason: contractReason(plan) }));
  const schema = asked.schemaChanged ? `schema version ${asked.schemaVersion} (Flink's output schema, compatible)` : "the same schema";
  return { ...plan, applied: true, notes: [...plan.notes, `Statement version ${asked.statementVersion} with ${schema} waits for governance's review (change request ${asked.changeRequest.id}).`, ...(asked.jobPaused ? [asked.onApproval] : [])] };
}

/** The reason a contract's rule change is requested with. */
function contractReason(plan: PlanItem): string {
  return `Contract ${plan.contractId ?? ""} applied from ${plan.source ?? "a file"}.`.slice(0, 500);
}

/** The product settings a contract states, as both a new major version and an update take them. */
function productSettings(d: NonNullable<PlanItem["desired"]>) {
  return {
    name: d.name,
    description: d.description,
    classification: d.classification,
    tags: d.tags,
    freshnessSeconds: d.freshnessSeconds,
    availabilityPct: d.availabilityPct,
    partitions: d.partitions,
    retentionMs: d.retentionMs,
    cleanupPolicy: d.cleanupPolicy,
    tieredStorage: d.tieredStorage,
    localRetentionMs: d.localRetentionMs,
    contactEmail: d.contactEmail,
    keyFields: d.keyFields,
  };
}

async function applyOne(tx: Tx, actor: Actor, content: string, source: string): Promise<AppliedItem> {
  const plan = await planContract(tx, actor, content, source);
  if (plan.errors.length > 0 || !plan.desired) throw new ValidationError(`The contract cannot be applied: ${plan.errors.join(" ")}`, { contract: plan.errors });
  const d = plan.desired;
  const domain = await tx.domain.findUniqueOrThrow({ where: { slug: d.domainSlug } });
  const fields = { ...productSettings(d), compatibilityMode: d.compatibilityMode };
  switch (plan.action) {
    case "create": {
      const product = await registerProductInTx(tx, actor, { domainId: domain.id, ...fields, schema: d.schema }, { contractSource: source });
      if (d.qualityRules.length > 0 || d.encryptPii) await setQualityRulesInTx(tx, actor, product.id, { rules: d.qualityRules, encryptPii: d.encryptPii });
      await submitForReviewInTx(tx, actor, product.id);
      return { ...plan, productId: product.id, topic: product.topicName, status: "IN_REVIEW", applied: true };
    }
    case "update": {
      const changed = new Set(plan.changes.map((c) => c.field));
      const draft = plan.status === "DRAFT" || plan.status === "REJECTED";
      const patch: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(fields)) if (changed.has(k) && (draft || (METADATA as readonly string[]).includes(k))) patch[k] = v;
      if (changed.has("schema") && draft) patch.schema = d.schema;
      if (Object.keys(patch).length > 0) await updateProductInTx(tx, actor, plan.productId ?? "", patch, { contractSource: source });
      // A draft takes the rules at once; a live product's change waits for review.
      if (changed.has("qualityRules") || changed.has("encryptPii")) await setQualityRulesInTx(tx, actor, plan.productId ?? "", { rules: d.qualityRules, encryptPii: d.encryptPii, ...(draft ? {} : { reason: contractReason(plan) }) });
      if (draft) await submitForReviewInTx(tx, actor, plan.productId ?? "");
      await recordAudit(tx, actor, "contract.applied", "DataProduct", plan.productId ?? "", { source, action: plan.action, fields: [...changed] });
      return { ...plan, status: draft ? "IN_REVIEW" : plan.status, applied: true };
    }
    case "no-change": {
      if (plan.status === "DRAFT") {
        // The file says the product should exist; a draft goes to review.
        await submitForReviewInTx(tx, actor, plan.productId ?? "");
        return { ...plan, status: "IN_REVIEW", applied: true };
      }
      // Adopting a product made in the portal: record where its contract lives, once.
      const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: plan.productId ?? "" } });
      if (!product.contractSource) await tx.dataProduct.update({ where: { id: product.id }, data: { contractSource: source, contractAppliedAt: new Date() } });
      return { ...plan, applied: false };
    }
    default:
      throw new ValidationError(`The contract cannot be applied: ${plan.errors.join(" ")}`);
  }
}
