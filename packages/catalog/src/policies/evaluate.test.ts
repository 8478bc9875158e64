import { describe, expect, it } from "vitest";
import type { PolicyEvent } from "./document.ts";
import { evaluatePolicy, type PolicyFacts, type ProductFacts } from "./evaluate.ts";
import { defaultPolicySource, parsePolicySource } from "./store.ts";

const policy = parsePolicySource(defaultPolicySource());
const DAY = 86_400_000;

const avro = (fields: object[]) => JSON.stringify({ type: "record", name: "R", fields });
const base: ProductFacts = {
  name: "Order Events",
  description: "Every order placed in the shop, as it happens.",
  contactEmail: "owner@orders.example",
  classification: "INTERNAL",
  partitions: 6,
  retentionMs: -1,
  cleanupPolicy: "delete",
  tieredStorage: true,
  keyFields: [],
  schema: { format: "AVRO", definition: avro([{ name: "orderId", type: "string" }]) },
};

function outcome(event: PolicyEvent, facts: PolicyFacts, ruleId: string) {
  const result = evaluatePolicy(policy, event, facts).results.find((r) => r.ruleId === ruleId);
  return result ? { outcome: result.outcome, message: result.message } : undefined;
}

type Row = [rule: string, change: Partial<ProductFacts>, expected: "pass" | "warn" | "fail", messagePart?: string];

// One row per rule and case: the default policy's product rules on registration.
const productRows: Row[] = [
  ["naming.slug", {}, "pass"],
  ["naming.slug", { name: "9 Lives" }, "fail", "does not match"],
  ["naming.slug", { name: "Kappa Orders" }, "fail", '"kappa" is a reserved word'],
  ["naming.slug", { name: "Orders Test Feed" }, "fail", '"test" is a reserved word'],
  ["naming.slug", { name: `Orders ${"x".repeat(70)}` }, "fail", "at most 60"],
  ["metadata.description", { description: "too short" }, "fail", "at least 20"],
  ["metadata.description", { description: "" }, "fail", "is required"],
  ["metadata.contact", { contactEmail: "" }, "fail", "is required"],
  ["metadata.contact", { contactEmail: "not-an-address" }, "fail", "must match"],
  ["classification.allowed", { classification: "" }, "fail", "required"],
  ["classification.allowed", { classification: "SECRET" }, "fail", "not an allowed"],
  ["topic.partitions", { partitions: 64 }, "pass"],
  ["topic.partitions", { partitions: 65 }, "fail", "1–64"],
  ["topic.partitions", { classification: "CONFIDENTIAL", partitions: 33 }, "fail", "1–32"],
  ["topic.partitions", { classification: "RESTRICTED", partitions: 12 }, "pass"],
  ["topic.partitions", { classification: "RESTRICTED", partitions: 13 }, "fail", "1–12"],
  ["topic.retention", { retentionMs: 3_600_000 }, "pass"],
  ["topic.retention", { retentionMs: 3_599_999 }, "fail", "shorter than the 1 h minimum"],
  ["topic.retention", { classification: "CONFIDENTIAL", retentionMs: DAY - 1 }, "fail", "shorter than the 1 day minimum"],
  ["topic.retention", { classification: "RESTRICTED", retentionMs: -1 }, "fail", "cannot keep records forever"],
  ["topic.retention", { classification: "RESTRICTED", retentionMs: 366 * DAY }, "fail", "exceeds the 365 days maximum"],
  ["topic.retention", { classification: "RESTRICTED", retentionMs: 365 * DAY }, "pass"],
  ["topic.compacted-key", { cleanupPolicy: "compact", tieredStorage: false }, "fail", "name the key field"],
  ["topic.compacted-key", { cleanupPolicy: "compact", tieredStorage: false, keyFields: ["orderId"] }, "pass"],
  ["topic.compacted-key", { cleanupPolicy: "compact", tieredStorage: false, keyFields: ["order_id"] }, "fail", "order_id not found"],
  ["topic.tiered-storage", { tieredStorage: false }, "warn", "turn on tiered storage"],
  ["topic.tiered-storage", { tieredStorage: false, retentionMs: 30 * DAY }, "pass"],
  ["topic.tiered-storage", { tieredStorage: false, retentionMs: 31 * DAY }, "warn", "above 30 days"],
  ["topic.tiered-storage", { tieredStorage: false, cleanupPolicy: "compact" }, "pass"],
  ["pii.tagged", { schema: { format: "AVRO", definition: avro([{ name: "customerEmail", type: "string" }]) } }, "fail", 'customerEmail looks like personal data: tag it with "pii": true'],
  ["pii.tagged", { schema: { format: "AVRO", definition: avro([{ name: "customerEmail", type: "string", pii: false }]) } }, "pass"],
  [
    "pii.tagged",
    { schema: { format: "AVRO", definition: avro([{ name: "customer", type: { type: "record", name: "C", fields: [{ name: "phone", type: ["null", "string"] }] } }]) } },
    "fail",
    "customer.phone",
  ],
  [
    "pii.tagged",
    { schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object", properties: { firstName: { type: "string" }, dateOfBirth: { type: "string", "x-pii": true } } }) } },
    "fail",
    'firstName looks like personal data: tag it with "x-pii": true',
  ],
  ["pii.classification", { schema: { format: "AVRO", definition: avro([{ name: "email", type: "string", pii: true }]) } }, "fail", "must be CONFIDENTIAL or RESTRICTED, not INTERNAL"],
  ["pii.classification", { classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: avro([{ name: "email", type: "string", pii: true }]) } }, "pass"],
  [
    "pii.classification",
    { schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object", $defs: { P: { type: "object", properties: { ssn: { type: "string", "x-pii": true } } } }, properties: { person: { $ref: "#/$defs/P" } } }) } },
    "fail",
    "person.ssn",
  ],
];

describe("default policy: product rules", () => {
  it.each(productRows)("%s with %j → %s", (rule, change, expected, messagePart) => {
    const result = outcome("product.register", { product: { ...base, ...change } }, rule);
    expect(result?.outcome).toBe(expected);
    if (messagePart) expect(result?.message).toContain(messagePart);
  });

  it("the compliant base product passes every rule, and an error failure blocks", () => {
    const ok = evaluatePolicy(policy, "product.register", { product: base });
    expect(ok.results.map((r) => r.outcome)).not.toContain("fail");
    expect(ok.blocked).toBe(false);
    const bad = evaluatePolicy(policy, "product.register", { product: { ...base, name: "Kappa" } });
    expect(bad.blocked).toBe(true);
    expect(bad.results.find((r) => r.outcome === "fail")).toMatchObject({ ruleId: "naming.slug", field: "name", severity: "error" });
  });

  it("a warn rule informs without blocking", () => {
    const result = evaluatePolicy(policy, "product.register", { product: { ...base, tieredStorage: false } });
    expect(result).toMatchObject({ blocked: false, warnings: 1, failures: 0 });
  });

  it("rules only run on the events they apply to", () => {
    const ids = (event: PolicyEvent) => evaluatePolicy(policy, event, { product: base }).results.map((r) => r.ruleId);
    expect(ids("schema.version")).toEqual(["topic.compacted-key", "pii.tagged", "pii.classification"]);
    expect(ids("subscription.request")).toEqual([]);
  });

  it("a disabled rule is not evaluated", () => {
    const doc = { ...policy, rules: policy.rules.map((r) => (r.id === "naming.slug" ? { ...r, enabled: false } : r)) };
    expect(evaluatePolicy(doc, "product.register", { product: { ...base, name: "Kappa" } }).results.some((r) => r.ruleId === "naming.slug")).toBe(false);
  });
});

describe("default policy: subscription and deprecation rules", () => {
  const sub = (over: Partial<NonNullable<PolicyFacts["subscription"]>> = {}) => ({
    purpose: "Reconcile payments with orders every night.",
    accountName: "payments-recon",
    openSubscriptionsOfAccount: 3,
    productClassification: "INTERNAL",
    ...over,
  });
  const rows: [string, PolicyEvent, PolicyFacts, "pass" | "warn" | "fail", string?][] = [
    ["subscription.purpose", "subscription.request", { subscription: sub() }, "pass"],
    ["subscription.purpose", "subscription.request", { subscription: sub({ purpose: "analytics" }) }, "fail", "at least 20"],
    ["subscription.per-account", "subscription.request", { subscription: sub({ openSubscriptionsOfAccount: 19 }) }, "pass"],
    ["subscription.per-account", "subscription.request", { subscription: sub({ openSubscriptionsOfAccount: 20 }) }, "fail", "at most 20"],
    ["subscription.restricted-governance", "subscription.request", { subscription: sub({ productClassification: "RESTRICTED" }) }, "pass", "governance reviewer decides"],
    ["subscription.restricted-governance", "subscription.approve", { subscription: sub({ productClassification: "RESTRICTED" }), decider: { isGovernance: false } }, "fail", "governance reviewers only"],
    ["subscription.restricted-governance", "subscription.approve", { subscription: sub({ productClassification: "RESTRICTED" }), decider: { isGovernance: true } }, "pass"],
    ["subscription.restricted-governance", "subscription.approve", { subscription: sub({ productClassification: "CONFIDENTIAL" }), decider: { isGovernance: false } }, "pass"],
    ["deprecation.notice", "product.deprecate", { deprecation: { now: 0, sunsetAt: 10 * DAY, activeSubscriptions: 2 } }, "warn", "at least 30 days"],
    ["deprecation.notice", "product.deprecate", { deprecation: { now: 0, sunsetAt: 30 * DAY, activeSubscriptions: 2 } }, "pass"],
    ["deprecation.notice", "product.deprecate", { deprecation: { now: 0, sunsetAt: DAY, activeSubscriptions: 0 } }, "pass"],
  ];
  it.each(rows)("%s on %s → %s", (rule, event, facts, expected, messagePart) => {
    const result = outcome(event, facts, rule);
    expect(result?.outcome).toBe(expected);
    if (messagePart) expect(result?.message).toContain(messagePart);
  });
});

describe("policy documents", () => {
  it("refuses unknown checks, bad regexes, duplicate ids and bad YAML with a pointer to the problem", () => {
    expect(() => parsePolicySource("apiVersion: kappa-mesh/policy/v1\nrules:\n  - {id: a, description: x, severity: error, appliesTo: [product.register], check: nope, params: {}}")).toThrow(/invalid/);
    expect(() =>
      parsePolicySource("apiVersion: kappa-mesh/policy/v1\nrules:\n  - {id: a, description: x, severity: error, appliesTo: [product.register], check: naming, params: {pattern: '('}}"),
    ).toThrow(/regular expression/);
    const rule = "{id: a, description: x, severity: warn, appliesTo: [product.register], check: compacted-key, params: {}}";
    expect(() => parsePolicySource(`apiVersion: kappa-mesh/policy/v1\nrules:\n  - ${rule}\n  - ${rule}`)).toThrow(/used twice/);
    expect(() => parsePolicySource("apiVersion: [unclosed")).toThrow(/not valid YAML/);
    expect(() => parsePolicySource("apiVersion: v0\nrules: []")).toThrow(/apiVersion/);
  });
});
