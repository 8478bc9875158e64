import { z } from "zod";
import { chargebackSection, DEFAULT_CHARGEBACK, DEFAULT_PRICES, pricesSection } from "../costs/prices.ts";

/*
 * The policy document: declarative rules, each an instance of one built-in
 * check with its parameters. Admins change ids, descriptions, severities,
 * parameters and the events a rule applies to, and may add more rules of the
 * same checks; the evaluator (evaluate.ts) is the only code that interprets
 * them. Pure (zod only): the portal's forms import it in the browser.
 */

export const POLICY_API_VERSION = "kappa-mesh/policy/v1";

export const POLICY_EVENTS = [
  "product.register",
  "product.update",
  "schema.version",
  "subscription.request",
  "subscription.approve",
  "product.deprecate",
] as const;
export type PolicyEvent = (typeof POLICY_EVENTS)[number];

const CLASSIFICATION = z.enum(["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"]);
const perClassification = <T extends z.ZodType>(bounds: T) => z.partialRecord(CLASSIFICATION, bounds).default({});

const regex = z.string().refine((source) => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}, "Not a valid regular expression.");

const partitionBounds = z.object({ min: z.number().int().min(1), max: z.number().int().min(1) }).refine((b) => b.min <= b.max, "min must not exceed max.");
const retentionBounds = z.object({
  /** Shortest retention allowed, in ms. */
  minMs: z.number().int().min(0).default(0),
  /** Longest finite retention allowed, in ms; absent = no upper bound. */
  maxMs: z.number().int().min(1).optional(),
  /** Whether retention.ms = -1 (keep forever) is allowed. */
  allowForever: z.boolean().default(true),
});

/** Each check and its parameters. */
export const CHECKS = {
  naming: z.object({ pattern: regex, maxLength: z.number().int().min(1).default(60), reservedWords: z.array(z.string().toLowerCase()).default([]) }),
  "required-text": z.object({ field: z.enum(["description", "contactEmail"]), minLength: z.number().int().min(1).default(1), pattern: regex.optional() }),
  classification: z.object({ allowed: z.array(CLASSIFICATION).min(1) }),
  "partition-bounds": z.object({ default: partitionBounds, byClassification: perClassification(partitionBounds) }),
  "retention-bounds": z.object({ default: retentionBounds, byClassification: perClassification(retentionBounds) }),
  "compacted-key": z.object({}).default({}),
  "tiered-storage-threshold": z.object({ retentionAboveMs: z.number().int().min(0) }),
  "pii-tagging": z.object({ namePatterns: z.array(regex).min(1) }),
  "pii-classification": z.object({ allowed: z.array(CLASSIFICATION).min(1) }),
  "subscription-governance": z.object({ classifications: z.array(CLASSIFICATION).min(1) }),
  "purpose-length": z.object({ minLength: z.number().int().min(1), maxLength: z.number().int().min(1).default(2000) }),
  "subscriptions-per-account": z.object({ max: z.number().int().min(1) }),
  "deprecation-notice": z.object({ minDays: z.number().int().min(0) }),
  /** Access recertification schedule (ops): how often owners re-confirm each subscription; read by the catalog's recertification, not a gate. */
  recertification: z.object({
    default: z.object({ everyDays: z.number().int().min(1).max(3650) }),
    byClassification: perClassification(z.object({ everyDays: z.number().int().min(1).max(3650) })),
    graceDays: z.number().int().min(0).max(365).default(14),
    autoRevoke: z.boolean().default(false),
    unusedDays: z.number().int().min(1).max(365).default(30),
  }),
  /**
   * Client quota classes (issue 33): each a Kafka quota (`producer_byte_rate`, `consumer_byte_rate` in bytes/s,
   * `request_percentage` of one request handler); `default` is the class of every account that has not been given
   * another. Read by the catalog's quota resolution and applied by the worker to each account's Kafka user; not a gate.
   */
  "quota-classes": z
    .object({
      default: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, "Class names are lower-case words, e.g. standard."),
      classes: z
        .record(
          z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, "Class names are lower-case words, e.g. standard."),
          z.object({
            producer_byte_rate: z.number().int().min(1024).max(Number.MAX_SAFE_INTEGER),
            consumer_byte_rate: z.number().int().min(1024).max(Number.MAX_SAFE_INTEGER),
            request_percentage: z.number().positive().max(100_000),
          }),
        )
        .refine((classes) => Object.keys(classes).length > 0 && Object.keys(classes).length <= 20, "Name between 1 and 20 quota classes."),
    })
    .refine((p) => Object.hasOwn(p.classes, p.default), { message: "The default must be one of the classes.", path: ["default"] }),
  /**
   * Data-quality rules in contracts (issue 29): how many a product may carry and how long each CEL expression may be;
   * read by the rules' validation, not a gate. `dlqRetentionMs` is the retention of every `<topic>.dlq`.
   */
  "data-quality-limits": z.object({
    maxRules: z.number().int().min(1).max(100).default(20),
    maxExpressionLength: z.number().int().min(10).max(10_000).default(1000),
    dlqRetentionMs: z.number().int().min(3_600_000).max(31_536_000_000).default(604_800_000),
  }),
} as const;
export type CheckName = keyof typeof CHECKS;
export type CheckParams<C extends CheckName> = z.output<(typeof CHECKS)[C]>;

const ruleBase = {
  id: z.string().regex(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/, "Rule ids are lower-case words joined by '.' or '-', e.g. naming.slug."),
  description: z.string().trim().min(1, "Describe the rule."),
  severity: z.enum(["error", "warn"]),
  appliesTo: z.array(z.enum(POLICY_EVENTS)).min(1, "Name at least one event the rule applies to."),
  enabled: z.boolean().default(true),
};

const rule = <C extends CheckName>(check: C) => z.object({ ...ruleBase, check: z.literal(check), params: CHECKS[check] });

export const policyRule = z.discriminatedUnion("check", [
  rule("naming"),
  rule("required-text"),
  rule("classification"),
  rule("partition-bounds"),
  rule("retention-bounds"),
  rule("compacted-key"),
  rule("tiered-storage-threshold"),
  rule("pii-tagging"),
  rule("pii-classification"),
  rule("subscription-governance"),
  rule("purpose-length"),
  rule("subscriptions-per-account"),
  rule("deprecation-notice"),
  rule("recertification"),
  rule("quota-classes"),
  rule("data-quality-limits"),
]);
export type PolicyRule = z.output<typeof policyRule>;

export const policyDocument = z
  .object({
    apiVersion: z.literal(POLICY_API_VERSION, { message: `apiVersion must be "${POLICY_API_VERSION}".` }),
    rules: z.array(policyRule).max(200, "At most 200 rules."),
    /** Showback and chargeback (issue 33): the price list and who pays a product's cost. */
    prices: pricesSection.default(DEFAULT_PRICES),
    chargeback: chargebackSection.default(DEFAULT_CHARGEBACK),
  })
  .superRefine((doc, ctx) => {
    const seen = new Set<string>();
    doc.rules.forEach((rule, i) => {
      if (seen.has(rule.id)) ctx.addIssue({ code: "custom", path: ["rules", i, "id"], message: `Rule id "${rule.id}" is used twice.` });
      seen.add(rule.id);
    });
  });

export type PolicyDocument = z.output<typeof policyDocument>;
