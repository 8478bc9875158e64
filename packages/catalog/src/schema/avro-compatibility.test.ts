import { describe, expect, it } from "vitest";
import { avscResolutionProblem } from "./avro-resolver.ts";
import { checkCompatibility } from "./check-compatibility.ts";
import { COMPATIBILITY_MODES, type CompatibilityMode } from "./modes.ts";

/*
 * One row per Avro rule: an old and a new version of a record, and whether
 * the new one is BACKWARD compatible (the new schema reads old data) and
 * FORWARD compatible (the old schema reads new data), as Confluent's
 * documentation states them ("Schema Evolution and Compatibility": BACKWARD
 * allows deleting fields and adding optional ones, FORWARD adding fields and
 * deleting optional ones, FULL only adding and deleting optional fields, NONE
 * anything; https://docs.confluent.io/platform/current/schema-registry/fundamentals/schema-evolution.html)
 * and the Avro specification's resolution rules (promotions int→long→float→
 * double and string↔bytes, enum defaults, unions, aliases, unqualified name
 * matching; https://avro.apache.org/docs/1.11.1/specification/#schema-resolution).
 * Each row runs under every non-transitive mode and NONE; FULL is both.
 */

type Field = Record<string, unknown>;
const record = (fields: Field[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: "record", name: "Order", namespace: "com.example.orders", fields, ...extra });
const id: Field = { name: "id", type: "string" };
const statusEnum = (symbols: string[], extra: Record<string, unknown> = {}) => ({ name: "status", type: { type: "enum", name: "Status", symbols, ...extra } });
const customer = (fields: Field[]) => ({ name: "customer", type: { type: "record", name: "Customer", fields } });

interface Row {
  rule: string;
  old: string;
  next: string;
  backward: boolean;
  forward: boolean;
  /** Rule and path the walker must name for the failing direction(s). */
  expect?: { rule: string; path: string };
}

const rows: Row[] = [
  { rule: "add a field with a default", old: record([id]), next: record([id, { name: "note", type: "string", default: "" }]), backward: true, forward: true },
  {
    rule: "add a field without a default",
    old: record([id]),
    next: record([id, { name: "amountCents", type: "long" }]),
    backward: false,
    forward: true,
    expect: { rule: "READER_FIELD_MISSING_DEFAULT_VALUE", path: "amountCents" },
  },
  { rule: "remove a field that had a default", old: record([id, { name: "note", type: "string", default: "" }]), next: record([id]), backward: true, forward: true },
  {
    rule: "remove a field without a default",
    old: record([id, { name: "amountCents", type: "long" }]),
    next: record([id]),
    backward: true,
    forward: false,
    expect: { rule: "READER_FIELD_MISSING_DEFAULT_VALUE", path: "amountCents" },
  },
  { rule: "a null default counts as a default", old: record([id]), next: record([id, { name: "note", type: ["null", "string"], default: null }]), backward: true, forward: true },
  { rule: "promote int to long", old: record([{ name: "qty", type: "int" }]), next: record([{ name: "qty", type: "long" }]), backward: true, forward: false, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "promote int to float", old: record([{ name: "qty", type: "int" }]), next: record([{ name: "qty", type: "float" }]), backward: true, forward: false, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "promote long to double", old: record([{ name: "qty", type: "long" }]), next: record([{ name: "qty", type: "double" }]), backward: true, forward: false, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "promote float to double", old: record([{ name: "qty", type: "float" }]), next: record([{ name: "qty", type: "double" }]), backward: true, forward: false, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "narrow long to int", old: record([{ name: "qty", type: "long" }]), next: record([{ name: "qty", type: "int" }]), backward: false, forward: true, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "narrow double to float", old: record([{ name: "qty", type: "double" }]), next: record([{ name: "qty", type: "float" }]), backward: false, forward: true, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "change int to string", old: record([{ name: "qty", type: "int" }]), next: record([{ name: "qty", type: "string" }]), backward: false, forward: false, expect: { rule: "TYPE_MISMATCH", path: "qty" } },
  { rule: "string to bytes and back", old: record([{ name: "blob", type: "string" }]), next: record([{ name: "blob", type: "bytes" }]), backward: true, forward: true },
  { rule: "change boolean to int", old: record([{ name: "flag", type: "boolean" }]), next: record([{ name: "flag", type: "int" }]), backward: false, forward: false, expect: { rule: "TYPE_MISMATCH", path: "flag" } },
  { rule: "a logical type on the same primitive", old: record([{ name: "at", type: "long" }]), next: record([{ name: "at", type: { type: "long", logicalType: "timestamp-millis" } }]), backward: true, forward: true },
  {
    rule: "add an enum symbol (old reader has no enum default)",
    old: record([statusEnum(["NEW", "PAID"])]),
    next: record([statusEnum(["NEW", "PAID", "REFUNDED"])]),
    backward: true,
    forward: false,
    expect: { rule: "MISSING_ENUM_SYMBOLS", path: "status" },
  },
  {
    rule: "add an enum symbol (old reader has an enum default)",
    old: record([statusEnum(["UNKNOWN", "NEW", "PAID"], { default: "UNKNOWN" })]),
    next: record([statusEnum(["UNKNOWN", "NEW", "PAID", "REFUNDED"], { default: "UNKNOWN" })]),
    backward: true,
    forward: true,
  },
  {
    rule: "remove an enum symbol without an enum default",
    old: record([statusEnum(["NEW", "PAID", "REFUNDED"])]),
    next: record([statusEnum(["NEW", "PAID"])]),
    backward: false,
    forward: true,
    expect: { rule: "MISSING_ENUM_SYMBOLS", path: "status" },
  },
  {
    rule: "remove an enum symbol with an enum default in the new version",
    old: record([statusEnum(["UNKNOWN", "NEW", "PAID", "REFUNDED"])]),
    next: record([statusEnum(["UNKNOWN", "NEW", "PAID"], { default: "UNKNOWN" })]),
    backward: true,
    forward: true,
  },
  {
    rule: "add a union branch",
    old: record([{ name: "ref", type: ["null", "string"], default: null }]),
    next: record([{ name: "ref", type: ["null", "string", "long"], default: null }]),
    backward: true,
    forward: false,
    expect: { rule: "MISSING_UNION_BRANCH", path: "ref" },
  },
  {
    rule: "remove a union branch",
    old: record([{ name: "ref", type: ["null", "string", "long"], default: null }]),
    next: record([{ name: "ref", type: ["null", "string"], default: null }]),
    backward: false,
    forward: true,
    expect: { rule: "MISSING_UNION_BRANCH", path: "ref" },
  },
  {
    rule: "make a field a union with its type",
    old: record([{ name: "ref", type: "string" }]),
    next: record([{ name: "ref", type: ["null", "string"], default: null }]),
    backward: true,
    forward: false,
    expect: { rule: "TYPE_MISMATCH", path: "ref" },
  },
  {
    rule: "change a nested record's field type",
    old: record([customer([{ name: "age", type: "int" }])]),
    next: record([customer([{ name: "age", type: "string" }])]),
    backward: false,
    forward: false,
    expect: { rule: "TYPE_MISMATCH", path: "customer.age" },
  },
  {
    rule: "add a nested field without a default",
    old: record([customer([{ name: "name", type: "string" }])]),
    next: record([customer([{ name: "name", type: "string" }, { name: "email", type: "string" }])]),
    backward: false,
    forward: true,
    expect: { rule: "READER_FIELD_MISSING_DEFAULT_VALUE", path: "customer.email" },
  },
  {
    rule: "a nested record inside an optional union",
    old: record([{ name: "customer", type: ["null", { type: "record", name: "Customer", fields: [{ name: "age", type: "int" }] }], default: null }]),
    next: record([{ name: "customer", type: ["null", { type: "record", name: "Customer", fields: [{ name: "age", type: "string" }] }], default: null }]),
    backward: false,
    forward: false,
    expect: { rule: "TYPE_MISMATCH", path: "customer.age" },
  },
  {
    rule: "promote array items",
    old: record([{ name: "lines", type: { type: "array", items: "int" } }]),
    next: record([{ name: "lines", type: { type: "array", items: "long" } }]),
    backward: true,
    forward: false,
    expect: { rule: "TYPE_MISMATCH", path: "lines[]" },
  },
  {
    rule: "change map values",
    old: record([{ name: "attributes", type: { type: "map", values: "string" } }]),
    next: record([{ name: "attributes", type: { type: "map", values: "int" } }]),
    backward: false,
    forward: false,
    expect: { rule: "TYPE_MISMATCH", path: "attributes{}" },
  },
  {
    rule: "change an array into a map",
    old: record([{ name: "lines", type: { type: "array", items: "string" } }]),
    next: record([{ name: "lines", type: { type: "map", values: "string" } }]),
    backward: false,
    forward: false,
    expect: { rule: "TYPE_MISMATCH", path: "lines" },
  },
  {
    rule: "rename the record without an alias",
    old: record([id]),
    next: record([id], { name: "Purchase" }),
    backward: false,
    forward: false,
    expect: { rule: "NAME_MISMATCH", path: "" },
  },
  {
    rule: "rename the record with an alias for the old name",
    old: record([id]),
    next: record([id], { name: "Purchase", aliases: ["Order"] }),
    backward: true,
    forward: false,
    expect: { rule: "NAME_MISMATCH", path: "" },
  },
  {
    rule: "rename a field with an alias for the old name",
    old: record([{ name: "amount", type: "long" }]),
    next: record([{ name: "amountCents", type: "long", aliases: ["amount"] }]),
    backward: true,
    forward: false,
    expect: { rule: "READER_FIELD_MISSING_DEFAULT_VALUE", path: "amount" },
  },
  { rule: "change only the namespace", old: record([id]), next: record([id], { namespace: "com.example.sales" }), backward: true, forward: true },
  {
    rule: "change a fixed size",
    old: record([{ name: "hash", type: { type: "fixed", name: "Hash", size: 16 } }]),
    next: record([{ name: "hash", type: { type: "fixed", name: "Hash", size: 32 } }]),
    backward: false,
    forward: false,
    expect: { rule: "FIXED_SIZE_MISMATCH", path: "hash" },
  },
  {
    rule: "add an optional field to a recursive record",
    old: JSON.stringify({ type: "record", name: "Node", fields: [{ name: "value", type: "int" }, { name: "next", type: ["null", "Node"], default: null }] }),
    next: JSON.stringify({
      type: "record",
      name: "Node",
      fields: [{ name: "value", type: "int" }, { name: "next", type: ["null", "Node"], default: null }, { name: "label", type: "string", default: "" }],
    }),
    backward: true,
    forward: true,
  },
  { rule: "change only docs", old: record([id]), next: record([{ ...id, doc: "The order's id" }], { doc: "An order" }), backward: true, forward: true },
];

const expected = (row: Row, mode: CompatibilityMode): boolean =>
  mode === "NONE" ? true : mode.startsWith("BACKWARD") ? row.backward : mode.startsWith("FORWARD") ? row.forward : row.backward && row.forward;

describe("Avro compatibility, rule × mode", () => {
  for (const row of rows) {
    for (const mode of COMPATIBILITY_MODES) {
      it(`${row.rule} — ${mode}: ${expected(row, mode) ? "compatible" : "incompatible"}`, () => {
        const result = checkCompatibility({ format: "AVRO", mode, candidate: { version: 2, definition: row.next }, previous: [{ version: 1, definition: row.old }] });
        expect(result.compatible).toBe(expected(row, mode));
        if (!result.compatible && row.expect) {
          expect(result.issues.map((i) => [i.rule, i.path])).toContainEqual([row.expect.rule, row.expect.path]);
        }
        expect(result.checkedVersions).toEqual(mode === "NONE" ? [] : [1]);
      });
    }
    it(`${row.rule} — avsc's resolver agrees`, () => {
      expect(avscResolutionProblem(row.next, row.old) === null).toBe(row.backward);
      expect(avscResolutionProblem(row.old, row.next) === null).toBe(row.forward);
    });
  }
});

describe("Avro incompatibility messages", () => {
  it("names the added field, the rule, the versions and the mode", () => {
    const result = checkCompatibility({
      format: "AVRO",
      mode: "BACKWARD",
      candidate: { version: 3, definition: record([id, { name: "amountCents", type: "long" }]) },
      previous: [
        { version: 1, definition: record([id]) },
        { version: 2, definition: record([id]) },
      ],
    });
    expect(result.checkedVersions).toEqual([2]);
    expect(result.issues).toEqual([
      {
        direction: "BACKWARD",
        version: 2,
        rule: "READER_FIELD_MISSING_DEFAULT_VALUE",
        path: "amountCents",
        location: "/fields/1",
        message: "field `amountCents` added without a default: readers of v3 cannot read data written with v2 under BACKWARD",
      },
    ]);
  });

  it("says a removed field breaks the old readers under FORWARD", () => {
    const result = checkCompatibility({
      format: "AVRO",
      mode: "FULL",
      candidate: { version: 3, definition: record([id]) },
      previous: [{ version: 2, definition: record([id, { name: "amountCents", type: "long" }]) }],
    });
    expect(result.issues.map((i) => i.message)).toEqual(["field `amountCents` removed without a default: readers of v2 cannot read data written with v3 under FULL"]);
  });

  it("describes type changes, enums and unions from the old version to the new one", () => {
    const check = (old: string, next: string, mode: CompatibilityMode) =>
      checkCompatibility({ format: "AVRO", mode, candidate: { version: 2, definition: next }, previous: [{ version: 1, definition: old }] }).issues.map((i) => i.message);
    expect(check(record([{ name: "qty", type: "int" }]), record([{ name: "qty", type: "long" }]), "FORWARD")).toEqual([
      "field `qty` changed type from int to long: readers of v1 cannot read data written with v2 under FORWARD",
    ]);
    expect(check(record([statusEnum(["NEW", "PAID", "REFUNDED"])]), record([statusEnum(["NEW", "PAID"])]), "BACKWARD")).toEqual([
      "field `status` lost enum symbol `REFUNDED` and has no enum default to read it as: readers of v2 cannot read data written with v1 under BACKWARD",
    ]);
    expect(check(record([{ name: "ref", type: ["null", "string"], default: null }]), record([{ name: "ref", type: ["null", "string", "long"], default: null }]), "FORWARD")).toEqual([
      "field `ref` now allows long, which the union in v1 lacks: readers of v1 cannot read data written with v2 under FORWARD",
    ]);
    expect(check(record([id]), record([id], { name: "Purchase" }), "BACKWARD")).toEqual([
      "the record renamed from `com.example.orders.Order` to `com.example.orders.Purchase` without an alias for the old name: readers of v2 cannot read data written with v1 under BACKWARD",
    ]);
  });
});
