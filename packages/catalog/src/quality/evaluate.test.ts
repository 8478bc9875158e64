import { describe, expect, it } from "vitest";
import { ruleEvaluator, taggedFields } from "./evaluate.ts";
import type { QualityRule } from "./rules.ts";

const avro = JSON.stringify({
  type: "record",
  name: "OrderPlaced",
  namespace: "example.orders",
  fields: [
    { name: "orderId", type: "string" },
    { name: "customer", type: { type: "record", name: "Customer", fields: [{ name: "email", type: ["null", "string"], pii: true }] } },
    { name: "note", type: "string", "confluent:tags": ["FREE_TEXT"] },
    { name: "totalCents", type: "long" },
  ],
});

const rule = (r: Partial<QualityRule> & Pick<QualityRule, "name" | "expression">): QualityRule => ({ description: "", kind: "CEL", mode: "WRITE", onFailure: "NONE", tags: [], ...r });

describe("the rule evaluator", () => {
  it("finds tagged fields through nested records and unions, with Confluent's full names", () => {
    expect(taggedFields("AVRO", avro)).toEqual([
      { path: "customer.email", name: "email", fullName: "example.orders.Customer.email", typeName: "STRING", tags: ["PII"] },
      { path: "note", name: "note", fullName: "example.orders.OrderPlaced.note", typeName: "STRING", tags: ["FREE_TEXT"] },
    ]);
  });

  it("fails a record only where a rule is false; an expression that errs lets it pass but is counted apart", () => {
    const evaluator = ruleEvaluator(
      [
        rule({ name: "non-negative-total", expression: "message.totalCents >= 0" }),
        rule({ name: "pii-is-email", kind: "CEL_FIELD", tags: ["PII"], expression: "value.contains('@')" }),
        rule({ name: "guarded", expression: "message.orderId.startsWith('x');message.totalCents > 100" }),
        rule({ name: "misspelt", expression: "message.totalCent >= 0" }),
      ],
      { format: "AVRO", definition: avro },
    );
    expect(evaluator.rules).toEqual(["non-negative-total", "pii-is-email", "guarded", "misspelt"]);
    expect(evaluator.evaluate({ orderId: "o-1", customer: { email: "a@b.c" }, note: "", totalCents: 5 })).toEqual(["passed", "passed", "passed", "errored"]);
    expect(evaluator.evaluate({ orderId: "x-1", customer: { email: "nobody" }, note: "", totalCents: -5 })).toEqual(["failed", "failed", "failed", "errored"]);
    // A null PII field is not evaluated (the client skips nulls).
    expect(evaluator.evaluate({ orderId: "x-2", customer: { email: null }, note: "", totalCents: 500 })).toEqual(["passed", "passed", "passed", "errored"]);
  });

  it("binds CEL_FIELD's context like the client (name, typeName, tags)", () => {
    const evaluator = ruleEvaluator([rule({ name: "ctx", kind: "CEL_FIELD", tags: ["FREE_TEXT"], expression: "name == 'note' && typeName == 'STRING' && 'FREE_TEXT' in tags && value.size() < 5" })], { format: "AVRO", definition: avro });
    expect(evaluator.evaluate({ orderId: "o", customer: { email: null }, note: "short", totalCents: 1 })).toEqual(["failed"]);
    expect(evaluator.evaluate({ orderId: "o", customer: { email: null }, note: "ok", totalCents: 1 })).toEqual(["passed"]);
  });
});
