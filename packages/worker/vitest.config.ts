import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/*
 * The longest files first, so that the two forks finish together: without a
 * timing cache (a fresh clone, as CI runs) vitest orders files by size, and a
 * five-minute trial that starts last makes the whole suite wait for it alone.
 * The order is from a run on 2 cores (durations in seconds); files not named
 * follow in vitest's own order.
 */
const LONGEST_FIRST = [
  "provisioning-failover", // ~190
  "scale-out", // ~130
  "producer-failover", // ~120
  "derived-products", // ~85
  "resilience", // ~65
  "observe", // ~35
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/test/${name}.integration.test.ts`));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // Each integration file starts its own broker and database; two cores.
    fileParallelism: true,
    maxWorkers: 2,
    pool: "forks",
    sequence: { sequencer: LongestFirst },
  },
});
