import { describe, expect, it } from "vitest";
import { checkCompatibility, compatibilityByMode } from "./check-compatibility.ts";
import { COMPATIBILITY_MODES, stricterModes } from "./modes.ts";

const record = (fields: unknown[]) => JSON.stringify({ type: "record", name: "Order", fields });

/*
 * Transitive modes: v3 reads v2 but not v1. Confluent's documentation: BACKWARD
 * checks the new schema against the latest version only, BACKWARD_TRANSITIVE
 * against all previous versions (same for FORWARD and FULL).
 */
const v1 = { version: 1, definition: record([{ name: "a", type: "int" }]) };
const v2 = { version: 2, definition: record([]) };
const v3 = { version: 3, definition: record([{ name: "a", type: "string", default: "" }]) };

describe("modes over several versions", () => {
  it("non-transitive modes look at the latest version only, transitive ones at all", () => {
    const verdicts = compatibilityByMode({ format: "AVRO", candidate: v3, previous: [v2, v1] });
    expect(Object.fromEntries(COMPATIBILITY_MODES.map((m) => [m, verdicts[m].compatible]))).toEqual({
      BACKWARD: true,
      BACKWARD_TRANSITIVE: false,
      FORWARD: true,
      FORWARD_TRANSITIVE: false,
      FULL: true,
      FULL_TRANSITIVE: false,
      NONE: true,
    });
    expect(verdicts.BACKWARD.checkedVersions).toEqual([2]);
    expect(verdicts.FULL_TRANSITIVE.checkedVersions).toEqual([1, 2]);
    expect(verdicts.NONE.checkedVersions).toEqual([]);
    expect(verdicts.BACKWARD_TRANSITIVE.issues).toEqual([
      {
        direction: "BACKWARD",
        version: 1,
        rule: "TYPE_MISMATCH",
        path: "a",
        location: "/fields/0/type",
        message: "field `a` changed type from int to string: readers of v3 cannot read data written with v1 under BACKWARD_TRANSITIVE",
      },
    ]);
    expect(verdicts.FULL_TRANSITIVE.issues.map((i) => `${i.direction} v${i.version} ${i.rule}`)).toEqual(["BACKWARD v1 TYPE_MISMATCH", "FORWARD v1 TYPE_MISMATCH"]);
  });

  it("gives the same verdict one mode at a time as all at once", () => {
    const all = compatibilityByMode({ format: "AVRO", candidate: v3, previous: [v1, v2] });
    for (const mode of COMPATIBILITY_MODES) expect(checkCompatibility({ format: "AVRO", mode, candidate: v3, previous: [v1, v2] })).toEqual(all[mode]);
  });

  it("a first version is compatible with nothing to compare", () => {
    expect(checkCompatibility({ format: "JSON_SCHEMA", mode: "FULL_TRANSITIVE", candidate: { version: 1, definition: "{}" }, previous: [] })).toEqual({
      compatible: true,
      mode: "FULL_TRANSITIVE",
      checkedVersions: [],
      issues: [],
    });
  });

  it("asks avsc about the latest version when the walker finds nothing", () => {
    // Two writer fields match one reader field through its aliases: avsc refuses to pick one.
    const writer = { version: 1, definition: record([{ name: "a", type: "int" }, { name: "b", type: "int" }]) };
    const reader = { version: 2, definition: record([{ name: "c", type: "int", aliases: ["a", "b"] }]) };
    const result = checkCompatibility({ format: "AVRO", mode: "BACKWARD", candidate: reader, previous: [writer] });
    expect(result.compatible).toBe(false);
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]?.rule).toBe("AVRO_RESOLUTION_FAILED");
    expect(result.issues[0]?.message).toMatch(/^avsc cannot resolve the schemas \(ambiguous aliasing .*\): readers of v2 cannot read data written with v1 under BACKWARD$/);
  });
});

describe("stricter modes", () => {
  it("orders the modes by what they demand", () => {
    expect(stricterModes("BACKWARD")).toEqual(["BACKWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"]);
    expect(stricterModes("FORWARD")).toEqual(["FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"]);
    expect(stricterModes("FORWARD_TRANSITIVE")).toEqual(["FULL_TRANSITIVE"]);
    expect(stricterModes("FULL")).toEqual(["FULL_TRANSITIVE"]);
    expect(stricterModes("FULL_TRANSITIVE")).toEqual([]);
    expect(stricterModes("NONE")).toEqual(["BACKWARD", "FORWARD", "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"]);
  });
});
