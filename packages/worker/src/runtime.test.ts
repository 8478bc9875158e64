import { describe, expect, it } from "vitest";
import { DEFAULT_WORKER_MAX_HEAP_MB, MIN_WORKER_MAX_HEAP_MB, workerNodeFlags, workerProcessEnv } from "./runtime.ts";

describe("the worker process's runtime settings", () => {
  it("caps the V8 heap, by default and as configured", () => {
    expect(workerNodeFlags()).toEqual([`--max-old-space-size=${DEFAULT_WORKER_MAX_HEAP_MB}`, "--heap-growing-percent=60"]);
    expect(workerNodeFlags(1024)).toEqual(["--max-old-space-size=1024", "--heap-growing-percent=60"]);
  });

  it("refuses a cap the worker cannot run in", () => {
    expect(() => workerNodeFlags(MIN_WORKER_MAX_HEAP_MB - 1)).toThrow(/≥ 128/);
    expect(() => workerNodeFlags(300.5)).toThrow(/whole number/);
  });

  it("sets two malloc arenas unless the operator chose otherwise", () => {
    expect(workerProcessEnv({ PATH: "/bin" })).toEqual({ PATH: "/bin", MALLOC_ARENA_MAX: "2" });
    expect(workerProcessEnv({ MALLOC_ARENA_MAX: "4" }).MALLOC_ARENA_MAX).toBe("4");
  });
});
