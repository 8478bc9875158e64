import type { DataProduct, SchemaVersion } from "@prisma/client";
import type { Actor } from "../actor.ts";
import type { Db, Tx } from "../db.ts";
import { CatalogError } from "../errors.ts";
import { policyNoticeDays } from "../major-versions.ts";
import { canInDomain } from "../permissions.ts";
import type { PolicyDocument } from "../policies/document.ts";
import { productFacts } from "../policies/enforce.ts";
import { evaluatePolicy, type RuleResult } from "../policies/evaluate.ts";
import { activePolicy } from "../policies/store.ts";
import { hasEncryptableFields } from "../quality/registry-rules.ts";
import { checkQualityRules, qualityLimitsFromPolicy, sameRules } from "../quality/rules.ts";
import { MARK_PII_FIRST, NOTHING_TO_ENCRYPT, qualityRulesOf } from "../quality/store.ts";
import { normalizedSchema } from "../schema/canonical.ts";
import { checkCompatibility } from "../schema/check-compatibility.ts";
import { DEFAULT_COMPATIBILITY_MODE, isCompatibilityMode, type CompatibilityMode } from "../schema/modes.ts";
import { EVOLVABLE_STATUSES } from "../schema-versions.ts";
import { FULLY_EDITABLE_STATUSES, METADATA_EDITABLE_STATUSES } from "../transitions.ts";
import { contractStatement, parseContract, type DesiredProduct } from "./from-contract.ts";

/*
 * `kappa plan`: what applying a contract would do to the catalog, per
 * product — create / update field by field / new schema version (with its
 * compatibility verdict) / new major version / no change — with the policy
 * evaluated as the action would evaluate it. Read-only.
 */

/** `skipped`: the file belongs to a domain the caller (or the token) may not change; `skipped` on the item says why. Not an error. */
export type PlanAction = "create" | "update" | "new-schema-version" | "new-major-version" | "no-change" | "skipped" | "error";

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface PlanItem {
  /** Where the contract came from (file path), as the client named it. */
  source: string | null;
  contractId: string | null;
  action: PlanAction;
  productId: string | null;
  /** The product's topic now, and the one a create / new major version would use. */
  topic: string | null;
  targetTopic: string | null;
  status: string | null;
  changes: FieldChange[];
  schema: {
    change: "none" | "new" | "replace-draft" | "new-version";
    mode: CompatibilityMode | null;
    compatible: boolean | null;
    issues: { path: string; rule: string; message: string }[];
  };
  policy: { version: number; results: RuleResult[]; blocked: boolean };
  errors: string[];
  notes: string[];
  /** Set when action is "skipped": why this file was not planned for the caller. */
  skipped?: string;
  desired?: DesiredProduct;
}

/** Fields a contract sets, and whether an approved product may still change them (the rest need a new major version). */
const COMPARED: { field: keyof DesiredProduct & keyof DataProduct; metadata: boolean }[] = [
  { field: "name", metadata: false },
  { field: "description", metadata: true },
  { field: "classification", metadata: false },
  { field: "tags", metadata: true },
  { field: "freshnessSeconds", metadata: true },
  { field: "availabilityPct", metadata: true },
  { field: "contactEmail", metadata: true },
  { field: "partitions", metadata: false },
  { field: "retentionMs", metadata: false },
  { field: "cleanupPolicy", metadata: false },
  { field: "tieredStorage", metadata: false },
  { field: "localRetentionMs", metadata: false },
  { field: "keyFields", metadata: false },
  { field: "compatibilityMode", metadata: false },
];

function storedValue(product: DataProduct, field: (typeof COMPARED)[number]["field"]): unknown {
  const value = product[field];
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "object" && value !== null && "toNumber" in value) return value.toNumber();
  return value;
}

function sameSchema(a: { format: string; definition: string }, b: { format: string; definition: string }): boolean {
  if (a.format !== b.format) return false;
  try {
    return normalizedSchema(a.definition) === normalizedSchema(b.definition);
  } catch {
    return a.definition === b.definition;
  }
}

function emptyItem(source: string | null): PlanItem {
  return {
    source,
    contractId: null,
    action: "error",
    productId: null,
    topic: null,
    targetTopic: null,
    status: null,
    changes: [],
    schema: { change: "none", mode: null, compatible: null, issues: [] },
    policy: { version: 0, results: [], blocked: false },
    errors: [],
    notes: [],
  };
}

function errorLines(error: unknown): string[] {
  if (error instanceof CatalogError) {
    const fields = Object.entries(error.fields ?? {}).flatMap(([k, v]) => v.map((m) => (k === "_" ? m : `${k}: ${m}`)));
    return fields.length > 0 ? fields : [error.message];
  }
  throw error;
}

/** The product line a contract id names: the highest major version that is not retired. */
export async function currentProductFor(db: Db | Tx, desired: Pick<DesiredProduct, "domainSlug" | "slug">) {
  return db.dataProduct.findFirst({
    where: { domain: { slug: desired.domainSlug }, slug: desired.slug, status: { not: "RETIRED" } },
    orderBy: { majorVersion: "desc" },
    include: { schemaVersions: { orderBy: { version: "desc" } }, domain: { select: { id: true, slug: true } } },
  });
}

/** The rules' problems against the file's own schema and the policy's limits (as the action will check them). */
function ruleProblems(desired: DesiredProduct, document: PolicyDocument): string[] {
  try {
    checkQualityRules(desired.qualityRules, desired.schema, qualityLimitsFromPolicy(document));
    return [];
  } catch (error) {
    return errorLines(error).map((line) => line.replace(/^rules\.(\d+)\.expression: /, "schema[0].quality[$1].implementation: ").replace(/^rules\.(\d+)\./, "schema[0].quality[$1]."));
  }
}

/** Turning field-level encryption on needs a field to encrypt: the file's schema must classify one PII (as the action checks). */
function encryptionProblems(desired: DesiredProduct): string[] {
  if (!desired.encryptPii || hasEncryptableFields(desired.schema.format, desired.schema.definition)) return [];
  return [`schema[0].customProperties.encryptPii: ${NOTHING_TO_ENCRYPT} ${MARK_PII_FIRST}`];
}

/** Where a derived product's statement lives in a contract file (to-contract.ts says why there). */
const STATEMENT_PLACE = "schema[0].customProperties.derivedStatement";

/**
 * A derived product's statement in the file against the catalog's (issue 34).
 * The statement round-trips. A changed statement of an ACTIVE derived product
 * is a new version of it, as in the portal (applying asks for it: Flink plans
 * it, its schema is Flink's, governance reviews it); what the catalog cannot
 * do is refused here, by name, rather than ignored: adding a statement to a
 * product, removing one, changing one of a product that is not ACTIVE, or a
 * schema other than the one Flink derived.
 */
function planDerived(item: PlanItem, current: { topicName: string; status: string }, stored: string | null, desired: DesiredProduct, schemaChanged: boolean): void {
  const topic = current.topicName;
  if (stored === null) {
    if (desired.derivedStatement !== null) {
      item.changes.push({ field: "derivedStatement", from: null, to: desired.derivedStatement });
      item.errors.push(`${STATEMENT_PLACE}: ${topic} is not a derived product, so it takes no statement. A derived product is declared as one (the publish form's "Derived product (Flink SQL)", or POST /api/v1/products with derived.statement); remove ${STATEMENT_PLACE} from this file.`);
    }
    return;
  }
  const before = contractStatement(stored);
  if (desired.derivedStatement === null) {
    item.changes.push({ field: "derivedStatement", from: before, to: null });
    item.errors.push(`${STATEMENT_PLACE}: ${topic} is a derived product, computed by its Flink SQL statement; keep the statement in the file (a derived product does not become a plain one: retire it instead).`);
    return;
  }
  if (before !== desired.derivedStatement) {
    item.changes.push({ field: "derivedStatement", from: before, to: desired.derivedStatement });
    if (current.status !== "ACTIVE") {
      item.errors.push(`${STATEMENT_PLACE}: the statement of ${topic} differs from the catalog's, and only an ACTIVE derived product's statement changes (a new version, its running job's state carried over by a savepoint); ${topic} is ${current.status}. Keep the current statement in the file.`);
      return;
    }
    item.notes.push(
      `A new version of the statement: applying asks for it as the product page's "Change statement" does — Flink plans it and derives the output schema (a compatible one keeps ${topic}; an incompatible one is refused, naming the fields), governance reviews it (four eyes), then the worker runs it, restoring the job's state from a savepoint where Flink can. The file's schema is not compared while its statement changes: the schema is Flink's.`,
    );
    return;
  }
  if (schemaChanged) item.errors.push(`schema[0].customProperties.schema: the schema of ${topic} is the one Flink derives from its statement; keep the exported schema in the file (it changes only with the statement).`);
}

/** Plans one contract text for the actor. Never throws for a bad contract: the item says why. */
export async function planContract(db: Db | Tx, actor: Actor, text: string, source: string | null): Promise<PlanItem> {
  const item = emptyItem(source);
  let desired: DesiredProduct;
  try {
    desired = parseContract(text).desired;
  } catch (error) {
    item.errors = errorLines(error);
    return item;
  }
  item.contractId = desired.contractId;
  item.desired = desired;
  const domain = await db.domain.findUnique({ where: { slug: desired.domainSlug } });
  if (!domain) {
    item.errors = [`There is no domain "${desired.domainSlug}": the contract's id names its domain first (<domain>.<product>).`];
    return item;
  }
  if (!canInDomain(actor, "product:create", domain.id)) {
    // A folder of contracts holds other domains' files too: they are not this caller's to change, and not an error.
    delete item.desired;
    item.action = "skipped";
    item.skipped = actor.token
      ? `Not yours to change: this token cannot publish products of domain "${desired.domainSlug}" (it needs the scope write:${desired.domainSlug}, held by owners of ${desired.domainSlug}).`
      : `Not yours to change: only owners of domain "${desired.domainSlug}" publish its products.`;
    return item;
  }
  const policy = await activePolicy(db);
  item.policy.version = policy.version;
  const desiredFacts = {
    name: desired.name,
    description: desired.description,
    contactEmail: desired.contactEmail,
    classification: desired.classification,
    partitions: desired.partitions,
    retentionMs: desired.retentionMs,
    cleanupPolicy: desired.cleanupPolicy,
    tieredStorage: desired.tieredStorage,
    keyFields: desired.keyFields,
    schema: desired.schema,
  };
  const current = await currentProductFor(db, desired);
  if (!current) {
    item.action = "create";
    item.targetTopic = `${desired.domainSlug}.${desired.slug}.v1`;
    item.changes = COMPARED.map((c) => ({ field: c.field, from: null, to: desired[c.field] }));
    if (desired.qualityRules.length > 0) item.changes.push({ field: "qualityRules", from: null, to: desired.qualityRules.map((r) => r.name) });
    if (desired.encryptPii) item.changes.push({ field: "encryptPii", from: null, to: true });
    if (desired.derivedStatement !== null) {
      // Registering one needs Flink's planner (its schema is Flink's): not from a file yet.
      item.action = "error";
      item.changes.push({ field: "derivedStatement", from: null, to: desired.derivedStatement });
      item.errors.push(
        `${STATEMENT_PLACE}: declaring a derived product from a contract file is not supported yet. Register it with the publish form's "Derived product (Flink SQL)" or POST /api/v1/products with derived.statement (Flink plans the statement and derives the schema); from then on its exported contract plans and applies here.`,
      );
      return item;
    }
    item.errors.push(...ruleProblems(desired, policy.document), ...encryptionProblems(desired));
    if (item.errors.length > 0) return item;
    item.schema.change = "new";
    const evaluation = evaluatePolicy(policy.document, "product.register", { product: desiredFacts });
    item.policy = { version: policy.version, results: evaluation.results, blocked: evaluation.blocked };
    item.notes.push("Registers the product and submits it for review; governance approval provisions the topic.");
    return item;
  }

  item.productId = current.id;
  item.topic = current.topicName;
  item.status = current.status;
  item.changes = COMPARED.filter((c) => JSON.stringify(storedValue(current, c.field)) !== JSON.stringify(desired[c.field])).map((c) => ({
    field: c.field,
    from: storedValue(current, c.field),
    to: desired[c.field],
  }));
  const rulesNow = await qualityRulesOf(db, current.id);
  const rulesChanged = !sameRules(rulesNow, desired.qualityRules);
  if (rulesChanged) {
    item.changes.push({ field: "qualityRules", from: rulesNow.map((r) => r.name), to: desired.qualityRules.map((r) => r.name) });
    item.errors.push(...ruleProblems(desired, policy.document));
    if (item.errors.length > 0) return item;
  }
  // Field-level encryption (issue 29) changes with the rules: one reviewed change (QUALITY_RULES), as in the portal's rules editor.
  const encryptionChanged = desired.encryptPii !== current.encryptPii;
  if (encryptionChanged) {
    item.changes.push({ field: "encryptPii", from: current.encryptPii, to: desired.encryptPii });
    item.errors.push(...encryptionProblems(desired));
    if (item.errors.length > 0) return item;
  }
  const latest: SchemaVersion | undefined = current.schemaVersions[0];
  const derived = await db.derivedProduct.findUnique({ where: { productId: current.id }, select: { statement: true } });
  // A new statement brings the schema Flink derives for it: the file's (the exported one) is not compared then.
  const statementChanged = derived !== null && desired.derivedStatement !== null && contractStatement(derived.statement) !== desired.derivedStatement;
  const schemaChanged = !statementChanged && (!latest || !sameSchema(latest, desired.schema));
  const baseline = productFacts(current, latest ?? null);
  const mode: CompatibilityMode = isCompatibilityMode(current.compatibilityMode) ? current.compatibilityMode : DEFAULT_COMPATIBILITY_MODE;
  planDerived(item, current, derived?.statement ?? null, desired, schemaChanged);
  if (item.errors.length > 0) return item;

  if (current.status === "IN_REVIEW") {
    if (item.changes.length > 0 || schemaChanged) item.errors.push(`${current.topicName} is in review: wait for the decision before changing it.`);
    else item.action = "no-change";
    if (item.errors.length > 0) return item;
  }

  if (FULLY_EDITABLE_STATUSES.includes(current.status)) {
    // Nothing exists on Kafka yet: every field, the schema included, is an edit.
    if (schemaChanged) {
      item.schema.change = "replace-draft";
      item.changes.push({ field: "schema", from: latest ? `${latest.format} v${latest.version}` : null, to: desired.schema.format });
    }
    item.action = item.changes.length > 0 ? "update" : "no-change";
    if (item.action === "update") item.notes.push(current.status === "REJECTED" ? "The rejected product returns to draft and is submitted again." : "The draft is updated and submitted for review.");
    else if (current.status === "DRAFT") item.notes.push("No field changes; apply submits the draft for review.");
    const evaluation = evaluatePolicy(policy.document, "product.register", { product: desiredFacts });
    item.policy = { version: policy.version, results: evaluation.results, blocked: evaluation.blocked };
    return item;
  }

  if (item.action === "no-change" && current.status === "IN_REVIEW") {
    item.notes.push("Waiting for review.");
    return item;
  }

  if (!METADATA_EDITABLE_STATUSES.includes(current.status)) {
    item.errors.push(`${current.topicName} is ${current.status}; it cannot change.`);
    return item;
  }

  // Approved and later: the topic exists. Its shape changes only through a new major version.
  if (item.changes.some((c) => c.field === "compatibilityMode")) {
    item.errors.push(`The compatibility mode of ${current.topicName} changes only through a reviewed change with a reason, in the portal; keep ${String(storedValue(current, "compatibilityMode"))} in the file.`);
    return item;
  }
  // Data-quality rules change through their own review (QUALITY_RULES), not a new topic.
  const locked = item.changes.filter((c) => c.field !== "qualityRules" && c.field !== "encryptPii" && c.field !== "derivedStatement" && !COMPARED.find((x) => x.field === c.field)?.metadata);
  if (rulesChanged || encryptionChanged) {
    const what = rulesChanged && encryptionChanged ? "The data-quality rules and field-level encryption change" : rulesChanged ? "The data-quality rules change" : `Field-level encryption of the PII fields (turned ${desired.encryptPii ? "on" : "off"}) changes`;
    item.notes.push(`${what} through review: applying requests the change (governance approves it, four eyes) with the contract as its reason.`);
  }
  let breaking = false;
  if (schemaChanged && !(EVOLVABLE_STATUSES as readonly string[]).includes(current.status)) {
    item.errors.push(`${current.topicName} is ${current.status}: its schema can evolve once it is ACTIVE.`);
    return item;
  }
  if (schemaChanged && latest) {
    const previous = current.schemaVersions.filter((v) => v.status === "APPROVED").map((v) => ({ version: v.version, definition: v.definition }));
    if (desired.schema.format !== latest.format) {
      breaking = true;
      item.schema = { change: "new-version", mode, compatible: false, issues: [{ path: "", rule: "FORMAT_CHANGED", message: `The schema format changes from ${latest.format} to ${desired.schema.format}.` }] };
    } else {
      const verdict = checkCompatibility({ format: desired.schema.format, mode, candidate: { version: latest.version + 1, definition: desired.schema.definition }, previous });
      breaking = !verdict.compatible;
      item.schema = { change: "new-version", mode, compatible: verdict.compatible, issues: verdict.issues.map((i) => ({ path: i.path, rule: i.rule, message: i.message })) };
    }
    item.changes.push({ field: "schema", from: `${latest.format} v${latest.version}`, to: `${desired.schema.format} v${latest.version + 1}` });
  }
  if (derived && locked.length > 0) {
    // publishMajorVersion copies a plain product: the statement and its job would not follow.
    item.errors.push(`${locked.map((c) => c.field).join(", ")} cannot change on ${current.topicName}, and a new major version of a derived product is not supported yet; keep ${locked.length === 1 ? "it" : "them"} as the catalog has ${locked.length === 1 ? "it" : "them"}.`);
    return item;
  }
  if (breaking || locked.length > 0) {
    item.action = "new-major-version";
    item.targetTopic = `${desired.domainSlug}.${desired.slug}.v${current.majorVersion + 1}`;
    item.notes.push(
      breaking
        ? `The schema is not ${mode}-compatible with ${current.topicName}: a new major version (new topic ${item.targetTopic}) instead of a silent break.`
        : `${locked.map((c) => c.field).join(", ")} cannot change on an existing topic: a new major version (new topic ${item.targetTopic}).`,
      `NEW MAJOR VERSION: applying creates ${item.targetTopic} in review with everything in this file, and only with --new-major-version. ${current.topicName} stays as it is until ${item.targetTopic} is approved; then it is deprecated with the sunset you give (--sunset) or the policy's ${policyNoticeDays(policy.document)} days' notice. A rejection leaves it unchanged.`,
    );
    const evaluation = evaluatePolicy(policy.document, "product.register", { product: desiredFacts });
    item.policy = { version: policy.version, results: evaluation.results, blocked: evaluation.blocked };
    return item;
  }
  if (schemaChanged) {
    item.action = "new-schema-version";
    item.notes.push(`A new schema version, compatible under ${mode}; it goes through review before producers may use it.`);
    const evaluation = evaluatePolicy(policy.document, "schema.version", { product: desiredFacts });
    item.policy = { version: policy.version, results: evaluation.results, blocked: evaluation.blocked };
    return item;
  }
  item.action = item.changes.length > 0 ? "update" : "no-change";
  // An edit is refused only for violations it introduces (as updateProduct decides).
  const evaluation = evaluatePolicy(policy.document, "product.update", { product: desiredFacts });
  const before = new Set(evaluatePolicy(policy.document, "product.update", { product: baseline }).results.filter((r) => r.outcome === "fail").map((r) => r.ruleId));
  const blocked = evaluation.results.some((r) => r.outcome === "fail" && !before.has(r.ruleId));
  item.policy = { version: policy.version, results: evaluation.results, blocked: item.action === "update" && blocked };
  return item;
}
