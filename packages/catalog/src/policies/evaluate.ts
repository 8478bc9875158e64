import { slugify } from "../naming.ts";
import { flattenFields, schemaFields, type SchemaField } from "../schema/fields.ts";
import { piiFieldPaths } from "../schema/pii.ts";
import type { CheckName, CheckParams, PolicyDocument, PolicyEvent, PolicyRule } from "./document.ts";

/*
 * The pure policy evaluator: (document, event, facts) → one result per rule
 * that applies. Runs in the browser (the product and subscription forms, as
 * the user types) and on the server (every catalog action), so both always
 * say the same. No I/O, no clock reads except the `now` the caller passes.
 */

export type Outcome = "pass" | "warn" | "fail";

export interface ProductFacts {
  name: string;
  description: string;
  contactEmail: string;
  classification: string;
  partitions: number;
  retentionMs: number;
  cleanupPolicy: string;
  tieredStorage: boolean;
  keyFields: string[];
  schema: { format: "AVRO" | "JSON_SCHEMA"; definition: string } | null;
}

export interface PolicyFacts {
  product?: ProductFacts;
  subscription?: { purpose: string; accountName: string; openSubscriptionsOfAccount: number; productClassification: string };
  /** Who decides (subscription.approve). */
  decider?: { isGovernance: boolean };
  deprecation?: { sunsetAt: number; now: number; activeSubscriptions: number };
}

export interface RuleResult {
  ruleId: string;
  description: string;
  severity: "error" | "warn";
  outcome: Outcome;
  message: string;
  /** The form field the result belongs to (`name`, `schema.definition`, ...). */
  field?: string;
}

export interface PolicyEvaluationResult {
  event: PolicyEvent;
  results: RuleResult[];
  failures: number;
  warnings: number;
  /** True when an `error` rule failed: the action must be refused. */
  blocked: boolean;
}

type Verdict = { ok: true; message: string } | { ok: false; message: string };
const ok = (message: string): Verdict => ({ ok: true, message });
const bad = (message: string): Verdict => ({ ok: false, message });

const DAY_MS = 86_400_000;
export function formatMs(ms: number): string {
  if (ms === -1) return "forever";
  if (ms % DAY_MS === 0) return `${ms / DAY_MS} day${ms === DAY_MS ? "" : "s"}`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  return `${ms} ms`;
}

/** Fields of the product's schema, parsed once per evaluation. */
function fieldsOf(product: ProductFacts, cache: Map<string, SchemaField[]>): SchemaField[] {
  if (!product.schema) return [];
  const key = `${product.schema.format}:${product.schema.definition}`;
  let fields = cache.get(key);
  if (!fields) {
    fields = schemaFields(product.schema.format, product.schema.definition);
    cache.set(key, fields);
  }
  return fields;
}

type Checker<C extends CheckName> = (params: CheckParams<C>, facts: PolicyFacts, fields: () => SchemaField[]) => Verdict | null;

/** Each check; null means "does not apply to these facts" (no result). */
const CHECKERS: { [C in CheckName]: { field?: string; run: Checker<C> } } = {
  naming: {
    field: "name",
    run: (p, { product }) => {
      if (!product) return null;
      const slug = slugify(product.name);
      if (!new RegExp(p.pattern).test(slug)) return bad(`The name's slug "${slug}" does not match ${p.pattern}.`);
      if (slug.length > p.maxLength) return bad(`The name's slug "${slug}" is ${slug.length} characters; at most ${p.maxLength}.`);
      const reserved = slug.split("-").find((word) => p.reservedWords.includes(word));
      if (reserved) return bad(`"${reserved}" is a reserved word and cannot be part of a product name.`);
      return ok(`"${slug}" is a valid product name.`);
    },
  },
  "required-text": {
    run: (p, { product }) => {
      if (!product) return null;
      const value = (product[p.field] ?? "").trim();
      const label = p.field === "contactEmail" ? "contact e-mail" : "description";
      if (value.length < p.minLength) return bad(value.length === 0 ? `A ${label} is required.` : `The ${label} needs at least ${p.minLength} characters (has ${value.length}).`);
      if (p.pattern && !new RegExp(p.pattern).test(value)) return bad(`The ${label} must match ${p.pattern}.`);
      return ok(`The ${label} is given.`);
    },
  },
  classification: {
    field: "classification",
    run: (p, { product }) => {
      if (!product) return null;
      if (!product.classification) return bad("A classification is required.");
      if (!(p.allowed as string[]).includes(product.classification)) return bad(`${product.classification} is not an allowed classification (${p.allowed.join(", ")}).`);
      return ok(`${product.classification} is an allowed classification.`);
    },
  },
  "partition-bounds": {
    field: "partitions",
    run: (p, { product }) => {
      if (!product || !Number.isFinite(product.partitions)) return null;
      const b = p.byClassification[product.classification as keyof typeof p.byClassification] ?? p.default;
      if (product.partitions < b.min || product.partitions > b.max) {
        return bad(`${product.classification} products have ${b.min}–${b.max} partitions; ${product.partitions} is outside.`);
      }
      return ok(`${product.partitions} partitions is within ${b.min}–${b.max}.`);
    },
  },
  "retention-bounds": {
    field: "retentionMs",
    run: (p, { product }) => {
      if (!product || !Number.isFinite(product.retentionMs)) return null;
      const b = p.byClassification[product.classification as keyof typeof p.byClassification] ?? p.default;
      const r = product.retentionMs;
      if (r === -1) return b.allowForever ? ok("Keeping records forever is allowed.") : bad(`${product.classification} products cannot keep records forever${b.maxMs ? `; at most ${formatMs(b.maxMs)}` : ""}.`);
      if (r < b.minMs) return bad(`Retention ${formatMs(r)} is shorter than the ${formatMs(b.minMs)} minimum for ${product.classification} products.`);
      if (b.maxMs !== undefined && r > b.maxMs) return bad(`Retention ${formatMs(r)} exceeds the ${formatMs(b.maxMs)} maximum for ${product.classification} products.`);
      return ok(`Retention ${formatMs(r)} is within bounds.`);
    },
  },
  "compacted-key": {
    field: "keyFields",
    run: (_p, { product }, fields) => {
      if (!product) return null;
      if (product.cleanupPolicy !== "compact") return ok("Not compacted: no key needed.");
      if (product.keyFields.length === 0) return bad("A compacted product keeps the latest record per key: name the key field(s).");
      const top = new Set(fields().map((f) => f.name));
      const missing = product.keyFields.filter((k) => !top.has(k));
      if (product.schema && missing.length > 0) return bad(`Key field${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not found at the top level of the schema.`);
      return ok(`Keyed by ${product.keyFields.join(", ")}.`);
    },
  },
  "tiered-storage-threshold": {
    field: "tieredStorage",
    run: (p, { product }) => {
      if (!product || !Number.isFinite(product.retentionMs)) return null;
      if (product.cleanupPolicy === "compact") return ok("Compacted topics are not tiered.");
      const long = product.retentionMs === -1 || product.retentionMs > p.retentionAboveMs;
      if (long && !product.tieredStorage) return bad(`Retention ${formatMs(product.retentionMs)} is above ${formatMs(p.retentionAboveMs)}: turn on tiered storage so old segments leave the broker disks.`);
      return ok(long ? "Tiered storage is on for a long retention." : `Retention up to ${formatMs(p.retentionAboveMs)} needs no tiered storage.`);
    },
  },
  "pii-tagging": {
    field: "schema.definition",
    run: (p, { product }, fields) => {
      if (!product?.schema) return null;
      const patterns = p.namePatterns.map((source) => new RegExp(source, "i"));
      const untagged = flattenFields(fields()).filter((f) => f.pii === undefined && patterns.some((re) => re.test(f.name)));
      if (untagged.length > 0) {
        const tag = product.schema.format === "AVRO" ? '"pii": true' : '"x-pii": true';
        return bad(`Field${untagged.length > 1 ? "s" : ""} ${untagged.map((f) => f.path).join(", ")} look${untagged.length > 1 ? "" : "s"} like personal data: tag ${untagged.length > 1 ? "them" : "it"} with ${tag} (or false if not personal).`);
      }
      return ok("Every field that looks like personal data is tagged.");
    },
  },
  "pii-classification": {
    field: "classification",
    run: (p, { product }) => {
      if (!product?.schema) return null;
      // The one definition of "tagged PII" (shared with masking).
      const pii = piiFieldPaths(product.schema.format, product.schema.definition);
      if (pii.length === 0) return ok("No PII fields.");
      if (!(p.allowed as string[]).includes(product.classification)) {
        return bad(`PII field${pii.length > 1 ? "s" : ""} ${pii.join(", ")}: the product must be ${p.allowed.join(" or ")}, not ${product.classification}.`);
      }
      return ok(`PII fields (${pii.join(", ")}) in a ${product.classification} product.`);
    },
  },
  "subscription-governance": {
    run: (p, facts) => {
      const classification = facts.subscription?.productClassification;
      if (!classification) return null;
      const needs = (p.classifications as string[]).includes(classification);
      if (!needs) return ok(`${classification} subscriptions may be decided by the product's owners.`);
      if (facts.decider && !facts.decider.isGovernance) return bad(`Subscriptions to ${classification} products are decided by governance reviewers only.`);
      return ok(`A governance reviewer decides subscriptions to ${classification} products.`);
    },
  },
  "purpose-length": {
    field: "purpose",
    run: (p, { subscription }) => {
      if (!subscription) return null;
      const n = subscription.purpose.trim().length;
      if (n < p.minLength) return bad(`State the purpose in at least ${p.minLength} characters (has ${n}).`);
      if (n > p.maxLength) return bad(`The purpose may have at most ${p.maxLength} characters (has ${n}).`);
      return ok("The purpose is stated.");
    },
  },
  "subscriptions-per-account": {
    field: "serviceAccountId",
    run: (p, { subscription }) => {
      if (!subscription) return null;
      const after = subscription.openSubscriptionsOfAccount + 1;
      if (after > p.max) return bad(`${subscription.accountName} already has ${subscription.openSubscriptionsOfAccount} open subscriptions; at most ${p.max} per service account.`);
      return ok(`${subscription.accountName} will have ${after} of at most ${p.max} subscriptions.`);
    },
  },
  "deprecation-notice": {
    field: "sunsetAt",
    run: (p, { deprecation }) => {
      if (!deprecation) return null;
      if (deprecation.activeSubscriptions === 0) return ok("No active subscribers to give notice to.");
      const days = (deprecation.sunsetAt - deprecation.now) / DAY_MS;
      if (days < p.minDays) return bad(`${deprecation.activeSubscriptions} active subscriber(s) need at least ${p.minDays} days' notice; the sunset is in ${Math.max(0, Math.floor(days))}.`);
      return ok(`Sunset in ${Math.floor(days)} days gives subscribers at least ${p.minDays} days.`);
    },
  },
  // Not a gate: it tells the requester which quota the account will run under.
  "quota-classes": {
    run: (p, { subscription }) => {
      if (!subscription) return null;
      const c = p.classes[p.default];
      return c ? ok(`The account runs under the "${p.default}" quota class unless given another: ${c.producer_byte_rate} B/s produce, ${c.consumer_byte_rate} B/s fetch, ${c.request_percentage}% request time.`) : null;
    },
  },
  // Bounds that the data-quality rules' validation reads (quality/rules.ts), not a gate of these events.
  "data-quality-limits": {
    run: () => null,
  },
  // A schedule, not a gate: it only tells the requester how often access is re-confirmed.
  recertification: {
    run: (p, { subscription }) => {
      if (!subscription) return null;
      return ok(`Owners recertify this access every ${p.default.everyDays} days (by classification where the policy says so)${p.autoRevoke ? `; overdue access is revoked after ${p.graceDays} days` : ""}.`);
    },
  },
};

function runRule(rule: PolicyRule, facts: PolicyFacts, fields: () => SchemaField[]): RuleResult | null {
  const checker = CHECKERS[rule.check] as { field?: string; run: (params: PolicyRule["params"], facts: PolicyFacts, fields: () => SchemaField[]) => Verdict | null };
  const verdict = checker.run(rule.params, facts, fields);
  if (!verdict) return null;
  const field = rule.check === "required-text" ? rule.params.field : checker.field;
  return {
    ruleId: rule.id,
    description: rule.description,
    severity: rule.severity,
    outcome: verdict.ok ? "pass" : rule.severity === "error" ? "fail" : "warn",
    message: verdict.message,
    ...(field ? { field } : {}),
  };
}

/** Evaluates every enabled rule of the document that applies to the event. */
export function evaluatePolicy(document: PolicyDocument, event: PolicyEvent, facts: PolicyFacts): PolicyEvaluationResult {
  const cache = new Map<string, SchemaField[]>();
  const fields = () => (facts.product ? fieldsOf(facts.product, cache) : []);
  const results = document.rules
    .filter((rule) => rule.enabled && rule.appliesTo.includes(event))
    .map((rule) => runRule(rule, facts, fields))
    .filter((r): r is RuleResult => r !== null);
  const failures = results.filter((r) => r.outcome === "fail").length;
  const warnings = results.filter((r) => r.outcome === "warn").length;
  return { event, results, failures, warnings, blocked: failures > 0 };
}

/** Failing results by form field, for showing next to the inputs. */
export function resultsByField(results: RuleResult[]): Record<string, RuleResult[]> {
  const byField: Record<string, RuleResult[]> = {};
  for (const r of results) if (r.field && r.outcome !== "pass") (byField[r.field] ??= []).push(r);
  return byField;
}
