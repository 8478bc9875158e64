import { describe, expect, it } from "vitest";
import { committedSum } from "./write.ts";

describe("committedSum (the usage ledger's bytes out)", () => {
  it("adds the committed offsets of the group's partitions; a partition without a commit counts 0", () => {
    const row = (committed: (string | null)[]) => ({ detail: committed.map((c, partition) => ({ partition, committedOffset: c, endOffset: "100", lag: null })) });
    expect(committedSum(row(["10", null, "32"]))).toBe(42n);
    expect(committedSum(row([null, null]))).toBe(0n);
    expect(committedSum(row(["9007199254740993", "1"]))).toBe(9007199254740994n);
  });
});
