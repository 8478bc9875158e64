import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate, generatedDir } from "../scripts/generate.ts";

describe("src/generated", () => {
  it("is up to date with definitions/ (run `npm run generate -w packages/kafka-protocol`)", () => {
    const expected = generate();
    const onDisk = readdirSync(generatedDir).filter((f) => f.endsWith(".ts")).sort();
    expect(onDisk).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) {
      expect(readFileSync(join(generatedDir, name), "utf8"), name).toBe(text);
    }
  });
});
