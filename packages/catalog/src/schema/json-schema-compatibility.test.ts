import { describe, expect, it } from "vitest";
import { checkCompatibility } from "./check-compatibility.ts";
import { jsonSchemaDifferences } from "./json-schema-compatibility.ts";
import { jsonSchemaModel } from "./json-schema-model.ts";
import { COMPATIBILITY_MODES, type CompatibilityMode } from "./modes.ts";

/*
 * One row per JSON Schema rule. `backward` and `changes` are Confluent Schema
 * Registry's verdict and difference list for the change from `old` to `next`,
 * from its JSON Schema provider's published examples
 * (json-schema-provider/src/test/resources/diff-schema-examples.json in
 * confluentinc/schema-registry; Confluent's documentation on JSON Schema
 * compatibility explains the same open/closed content model rules).
 * `forward` is the same rules applied to the swapped pair (an old reader of
 * new data), which is how Confluent checks FORWARD.
 */

interface Row {
  rule: string;
  old: unknown;
  next: unknown;
  backward: boolean;
  forward: boolean;
  /** Confluent's differences old → next: "TYPE #/json/path". */
  changes?: string[];
  /** The property path an issue must name when BACKWARD fails, and when FORWARD does. */
  path?: string;
  forwardPath?: string;
}

const str = { type: "string" };
const num = { type: "number" };

const rows: Row[] = [
  { rule: "change the type", old: { type: "object" }, next: { type: "array" }, backward: false, forward: false, changes: ["TYPE_CHANGED #/"] },
  { rule: "raise minLength", old: { type: "string", minLength: 10 }, next: { type: "string", minLength: 11 }, backward: false, forward: true, changes: ["MIN_LENGTH_INCREASED #/minLength"] },
  { rule: "raise maxLength", old: { type: "string", maxLength: 10 }, next: { type: "string", maxLength: 12 }, backward: true, forward: false, changes: ["MAX_LENGTH_INCREASED #/maxLength"] },
  { rule: "remove a pattern", old: { type: "string", pattern: "uuid" }, next: str, backward: true, forward: false, changes: ["PATTERN_REMOVED #/pattern"] },
  { rule: "change a pattern", old: { type: "string", pattern: "date-time" }, next: { type: "string", pattern: "uuid" }, backward: false, forward: false, changes: ["PATTERN_CHANGED #/pattern"] },
  { rule: "raise maximum", old: { type: "number", maximum: 10 }, next: { type: "number", maximum: 11 }, backward: true, forward: false, changes: ["MAXIMUM_INCREASED #/maximum"] },
  { rule: "remove minimum", old: { type: "number", minimum: 10 }, next: num, backward: true, forward: false, changes: ["MINIMUM_REMOVED #/minimum"] },
  { rule: "reduce multipleOf", old: { type: "number", multipleOf: 10 }, next: { type: "number", multipleOf: 2 }, backward: true, forward: false, changes: ["MULTIPLE_OF_REDUCED #/multipleOf"] },
  { rule: "change multipleOf", old: { type: "number", multipleOf: 10 }, next: { type: "number", multipleOf: 11 }, backward: false, forward: false, changes: ["MULTIPLE_OF_CHANGED #/multipleOf"] },
  { rule: "narrow number to integer", old: num, next: { type: "integer" }, backward: false, forward: true, changes: ["TYPE_NARROWED #/"] },
  { rule: "widen integer to number", old: { type: "integer" }, next: num, backward: true, forward: false, changes: ["TYPE_EXTENDED #/"] },
  { rule: "narrow a not", old: { not: num }, next: { not: { type: "integer" } }, backward: true, forward: false, changes: ["NOT_TYPE_NARROWED #/not"] },
  { rule: "remove an enum", old: { type: "string", enum: ["red"] }, next: str, backward: true, forward: false, changes: ["PRODUCT_TYPE_NARROWED #/"] },
  {
    rule: "extend an enum (allOf form)",
    old: { allOf: [str, { enum: ["red"] }] },
    next: { allOf: [{ enum: ["red", "blue"] }, str] },
    backward: true,
    forward: false,
    changes: ["ENUM_ARRAY_EXTENDED #/allOf/1/enum"],
  },
  { rule: "change an enum", old: { allOf: [str, { enum: ["red"] }] }, next: { allOf: [str, { enum: ["blue"] }] }, backward: false, forward: false, changes: ["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"] },
  {
    rule: "extend an enum of a property",
    old: { type: "object", properties: { status: { type: "string", enum: ["NEW", "PAID"] } } },
    next: { type: "object", properties: { status: { type: "string", enum: ["NEW", "PAID", "REFUNDED"] } } },
    backward: true,
    forward: false,
    path: "status",
  },
  { rule: "extend a type array", old: { type: ["object"] }, next: { type: ["object", "array"] }, backward: true, forward: false, changes: ["SUM_TYPE_EXTENDED #/"] },
  { rule: "change a oneOf alternative", old: { oneOf: [str] }, next: { oneOf: [num] }, backward: false, forward: false, changes: ["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"] },
  { rule: "add a oneOf alternative", old: { oneOf: [str] }, next: { oneOf: [num, str] }, backward: true, forward: false, changes: ["SUM_TYPE_EXTENDED #/"] },
  { rule: "single oneOf to single allOf", old: { oneOf: [str] }, next: { allOf: [str] }, backward: true, forward: true, changes: ["COMBINED_TYPE_EXTENDED #/"] },
  { rule: "oneOf to allOf", old: { oneOf: [str, { type: "integer" }] }, next: { allOf: [str] }, backward: false, forward: true, changes: ["COMBINED_TYPE_CHANGED #/"] },
  { rule: "a type becomes one alternative", old: str, next: { oneOf: [num, str] }, backward: true, forward: false, changes: ["SUM_TYPE_EXTENDED #/"] },
  {
    rule: "swap properties of an open content model",
    old: { properties: { foo: str } },
    next: { properties: { bar: str } },
    backward: false,
    forward: false,
    changes: ["PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/bar", "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL #/properties/foo"],
    path: "bar",
    forwardPath: "foo",
  },
  { rule: "change a property's type", old: { properties: { foo: str } }, next: { properties: { foo: num } }, backward: false, forward: false, changes: ["TYPE_CHANGED #/properties/foo"], path: "foo", forwardPath: "foo" },
  {
    rule: "add an optional property to a closed content model",
    old: { properties: { foo: str }, additionalProperties: false },
    next: { properties: { foo: str, bar: num }, additionalProperties: false },
    backward: true,
    forward: false,
    changes: ["OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/bar"],
    path: "bar",
  },
  {
    rule: "add a property covered by patternProperties",
    old: { properties: { foo: str }, additionalProperties: false, patternProperties: { "^S_": str, "^I_": { type: "integer" } } },
    next: { properties: { foo: str, I_123: num }, additionalProperties: false, patternProperties: { "^S_": str, "^I_": { type: "integer" } } },
    backward: true,
    forward: false,
    changes: [
      "TYPE_EXTENDED #/properties/I_123",
      "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/I_123",
      "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/I_123",
    ],
  },
  {
    rule: "add a property not covered by additionalProperties",
    old: { properties: { foo: str }, additionalProperties: str },
    next: { properties: { foo: str, bar: num }, additionalProperties: str },
    backward: false,
    forward: false,
    changes: [
      "TYPE_CHANGED #/properties/bar",
      "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/bar",
      "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/bar",
    ],
    path: "bar",
  },
  {
    rule: "add a required property to a partially open model",
    old: { properties: { foo: str }, additionalProperties: str },
    next: { properties: { foo: str, bar: str }, required: ["bar"], additionalProperties: str },
    backward: false,
    forward: true,
    changes: ["PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/bar", "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/bar"],
    path: "bar",
  },
  {
    rule: "remove a property into additionalProperties",
    old: { properties: { foo: str, bar: str }, additionalProperties: false },
    next: { properties: { foo: str }, additionalProperties: str },
    backward: true,
    forward: false,
    changes: ["PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/bar", "ADDITIONAL_PROPERTIES_ADDED #/additionalProperties"],
  },
  {
    rule: "remove a property from a closed content model",
    old: { properties: { foo: str, bar: str }, additionalProperties: false },
    next: { properties: { foo: str }, additionalProperties: false },
    backward: false,
    forward: true,
    changes: ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/bar"],
    path: "bar",
  },
  {
    rule: "add a property to an open content model",
    old: { properties: { foo: str } },
    next: { properties: { foo: str, bar: num } },
    backward: false,
    forward: true,
    changes: ["PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/bar"],
    path: "bar",
  },
  { rule: "add an empty-schema property to an open model", old: { additionalProperties: true }, next: { additionalProperties: true, properties: { foo: true } }, backward: true, forward: true },
  { rule: "make a property optional", old: { properties: { foo: str }, required: ["foo"] }, next: { properties: { foo: str } }, backward: true, forward: false, changes: ["REQUIRED_ATTRIBUTE_REMOVED #/required/foo"] },
  { rule: "make a property required", old: { properties: { foo: str } }, next: { properties: { foo: str }, required: ["foo"] }, backward: false, forward: true, changes: ["REQUIRED_ATTRIBUTE_ADDED #/required/foo"], path: "foo" },
  {
    rule: "make a property with a default required",
    old: { properties: { foo: str } },
    next: { properties: { foo: { type: "string", default: "x" } }, required: ["foo"] },
    backward: true,
    forward: true,
  },
  { rule: "lower maxProperties", old: { maxProperties: 2 }, next: { maxProperties: 1 }, backward: false, forward: true, changes: ["MAX_PROPERTIES_DECREASED #/maxProperties"] },
  { rule: "raise minProperties", old: { minProperties: 1 }, next: { minProperties: 2 }, backward: false, forward: true, changes: ["MIN_PROPERTIES_INCREASED #/minProperties"] },
  { rule: "give array items a schema", old: { type: "array" }, next: { type: "array", items: str }, backward: false, forward: true, changes: ["SCHEMA_ADDED #/items"] },
  {
    rule: "drop positional items of an open array",
    old: { type: "array", items: [str, num] },
    next: { type: "array" },
    backward: true,
    forward: false,
    changes: ["ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL #/items/0", "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL #/items/1"],
  },
  {
    rule: "add a positional item to a closed array",
    old: { type: "array", items: [str], additionalItems: false },
    next: { type: "array", items: [str, num], additionalItems: false },
    backward: true,
    forward: false,
    changes: ["ITEM_ADDED_TO_CLOSED_CONTENT_MODEL #/items/1"],
  },
  {
    rule: "add a 2020-12 prefix item covered by items",
    old: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", prefixItems: [str], items: num },
    next: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", prefixItems: [str, num], items: num },
    backward: true,
    forward: true,
  },
  { rule: "lower maxItems", old: { type: "array", maxItems: 2 }, next: { type: "array", maxItems: 1 }, backward: false, forward: true, changes: ["MAX_ITEMS_DECREASED #/maxItems"] },
  { rule: "drop uniqueItems", old: { type: "array", uniqueItems: true }, next: { type: "array" }, backward: true, forward: false, changes: ["UNIQUE_ITEMS_REMOVED #/uniqueItems"] },
  {
    rule: "change the type behind a $ref",
    old: { type: "array", items: { $ref: "#/definitions/someRef" }, definitions: { someRef: str } },
    next: { type: "array", items: { $ref: "#/definitions/someRef" }, definitions: { someRef: num } },
    backward: false,
    forward: false,
    changes: ["TYPE_CHANGED #/items"],
  },
  { rule: "move a type behind a $ref", old: str, next: { $ref: "#/definitions/someRef", definitions: { someRef: str } }, backward: true, forward: true, changes: [] },
  { rule: "resolve $defs of 2020-12", old: { $ref: "#/$defs/money", $defs: { money: { type: "integer" } } }, next: { $ref: "#/$defs/money", $defs: { money: num } }, backward: true, forward: false },
  { rule: "open a closed content model", old: { properties: {}, additionalProperties: false }, next: { properties: {} }, backward: true, forward: false, changes: ["ADDITIONAL_PROPERTIES_ADDED #/additionalProperties"] },
  { rule: "constrain additional properties", old: { additionalProperties: true }, next: { additionalProperties: num }, backward: false, forward: true, changes: ["ADDITIONAL_PROPERTIES_NARROWED #/additionalProperties"] },
  {
    rule: "change a nested property",
    old: { type: "object", properties: { customer: { type: "object", properties: { email: str } } } },
    next: { type: "object", properties: { customer: { type: "object", properties: { email: num } } } },
    backward: false,
    forward: false,
    changes: ["TYPE_CHANGED #/properties/customer/properties/email"],
    path: "customer.email",
  },
  {
    rule: "extend a recursive schema",
    old: { type: "object", additionalProperties: false, properties: { name: str, children: { type: "array", items: { $ref: "#" } } } },
    next: { type: "object", additionalProperties: false, properties: { name: str, size: num, children: { type: "array", items: { $ref: "#" } } } },
    backward: true,
    forward: false,
    path: "size",
  },
  { rule: "change only the description", old: { type: "string", description: "a" }, next: { type: "string", description: "b" }, backward: true, forward: true, changes: ["DESCRIPTION_CHANGED #/"] },
];

const expected = (row: Row, mode: CompatibilityMode): boolean =>
  mode === "NONE" ? true : mode.startsWith("BACKWARD") ? row.backward : mode.startsWith("FORWARD") ? row.forward : row.backward && row.forward;

describe("JSON Schema compatibility, rule × mode", () => {
  for (const row of rows) {
    const old = JSON.stringify(row.old);
    const next = JSON.stringify(row.next);
    if (row.changes) {
      it(`${row.rule} — Confluent's differences`, () => {
        const found = jsonSchemaDifferences(jsonSchemaModel(row.old), jsonSchemaModel(row.next)).map((d) => `${d.type} ${d.location}`);
        expect(found.sort()).toEqual([...(row.changes ?? [])].sort());
      });
    }
    for (const mode of COMPATIBILITY_MODES) {
      it(`${row.rule} — ${mode}: ${expected(row, mode) ? "compatible" : "incompatible"}`, () => {
        const result = checkCompatibility({ format: "JSON_SCHEMA", mode, candidate: { version: 2, definition: next }, previous: [{ version: 1, definition: old }] });
        expect(result.compatible).toBe(expected(row, mode));
        const paths = (direction: string) => result.issues.filter((i) => i.direction === direction).map((i) => i.path);
        if (!result.compatible && !row.backward && row.path !== undefined && !mode.startsWith("FORWARD")) expect(paths("BACKWARD")).toContain(row.path);
        if (!result.compatible && !row.forward && row.forwardPath !== undefined && !mode.startsWith("BACKWARD")) expect(paths("FORWARD")).toContain(row.forwardPath);
        for (const issue of result.issues) expect(issue.message).toMatch(/: readers of v[12] cannot read data written with v[12] under [A-Z_]+$/);
      });
    }
  }
});

describe("JSON Schema incompatibility messages", () => {
  const check = (old: unknown, next: unknown, mode: CompatibilityMode) =>
    checkCompatibility({ format: "JSON_SCHEMA", mode, candidate: { version: 3, definition: JSON.stringify(next) }, previous: [{ version: 2, definition: JSON.stringify(old) }] }).issues;

  it("explains the open content model", () => {
    expect(check({ type: "object", properties: { id: str } }, { type: "object", properties: { id: str, amountCents: { type: "integer" } } }, "BACKWARD")).toEqual([
      {
        direction: "BACKWARD",
        version: 2,
        rule: "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
        path: "amountCents",
        location: "#/properties/amountCents",
        message:
          'property `amountCents` added to an open content model, where v2 allowed any value under that name (close the model with "additionalProperties": false first): readers of v3 cannot read data written with v2 under BACKWARD',
      },
    ]);
  });

  it("names required, removed and narrowed properties from the old version to the new one", () => {
    const closed = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", additionalProperties: false, properties, required });
    expect(check(closed({ id: str, amountCents: num }), closed({ id: str }), "BACKWARD").map((i) => i.message)).toEqual([
      'property `amountCents` removed from a closed content model ("additionalProperties": false): readers of v3 cannot read data written with v2 under BACKWARD',
    ]);
    expect(check(closed({ id: str, note: str }), closed({ id: str, note: str }, ["note"]), "FULL").map((i) => i.message)).toEqual([
      "property `note` made required without a default: readers of v3 cannot read data written with v2 under FULL",
    ]);
    expect(check(closed({ qty: num }), closed({ qty: { type: "integer" } }), "BACKWARD").map((i) => i.message)).toEqual([
      "property `qty` changed type from number to integer: readers of v3 cannot read data written with v2 under BACKWARD",
    ]);
    expect(check(closed({ qty: { type: "integer" } }), closed({ qty: num }), "FORWARD").map((i) => i.message)).toEqual([
      "property `qty` changed type from integer to number: readers of v2 cannot read data written with v3 under FORWARD",
    ]);
  });

  it("refuses a $ref it cannot resolve with the reason", () => {
    expect(() => check({ $ref: "https://example.com/other.json" }, str, "BACKWARD")).toThrow(/only references inside the schema/);
  });
});
