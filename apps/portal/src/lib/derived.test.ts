import { describe, expect, it } from "vitest";
import { lagText, offsetOf, outputColumns } from "./derived";

describe("derived-product UI helpers", () => {
  it("reads Flink's types from the output schema, a nullable column's from inside anyOf", () => {
    const schema = {
      type: "object",
      properties: {
        merchant: { type: "string", "x-flink-type": "STRING" },
        revenue: { anyOf: [{ type: "number", "x-flink-type": "DOUBLE" }, { type: "null" }] },
        plain: { type: "integer" },
      },
      required: ["merchant"],
    };
    expect(outputColumns(schema)).toEqual([
      { name: "merchant", type: "STRING", required: true },
      { name: "revenue", type: "DOUBLE", required: false },
      { name: "plain", type: "integer", required: false },
    ]);
  });

  it("finds Flink's line and column (1-based) in the statement, clamped to the text", () => {
    const text = "SELECT merchant,\n  nope\nFROM t";
    expect(text.slice(offsetOf(text, 2, 3), offsetOf(text, 2, 3) + 4)).toBe("nope");
    expect(offsetOf(text, 1, 1)).toBe(0);
    expect(text.slice(offsetOf(text, 3, 6))).toBe("t");
    // Past the end of a line or of the text: its last position, never beyond.
    expect(offsetOf(text, 2, 99)).toBe("SELECT merchant,\n  nope".length);
    expect(offsetOf(text, 9, 1)).toBe("SELECT merchant,\n  nope\n".length);
  });

  it("says a watermark lag in the unit that reads best", () => {
    expect(lagText(850)).toBe("850 ms");
    expect(lagText(4_200)).toBe("4.2 s");
    expect(lagText(210_000)).toBe("3.5 min");
    expect(lagText(7_560_000)).toBe("2.1 h");
  });
});
