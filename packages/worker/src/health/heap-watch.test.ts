import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { HEAP_WARN_SHARE, heapWarning, oldSpaceCapBytes } from "./heap-watch.ts";

const MB = 1024 * 1024;

describe("the heap cap warning", () => {
  it("warns once the live set passes its share of the cap, at most once per quarter of an hour", () => {
    const limit = 256 * MB;
    expect(heapWarning({ usedBytes: limit * HEAP_WARN_SHARE - 1, limitBytes: limit }, null, 0)).toBeNull();
    const warning = heapWarning({ usedBytes: 200 * MB, limitBytes: limit }, null, 0);
    expect(warning?.message).toContain("WORKER_MAX_HEAP_MB");
    expect(warning?.fields).toEqual({ liveHeapMb: 200, heapLimitMb: 256, sharePct: 78 });
    expect(heapWarning({ usedBytes: 200 * MB, limitBytes: limit }, 0, 14 * 60_000)).toBeNull();
    expect(heapWarning({ usedBytes: 200 * MB, limitBytes: limit }, 0, 15 * 60_000)).not.toBeNull();
  });

  it("reads the cap the process was started with", () => {
    expect(oldSpaceCapBytes(["--max-old-space-size=256", "--heap-growing-percent=60"], undefined)).toBe(256 * MB);
    expect(oldSpaceCapBytes([], "--enable-source-maps --max-old-space-size=512")).toBe(512 * MB);
    expect(oldSpaceCapBytes(["--max_old_space_size", "300"], "--max-old-space-size=512")).toBe(300 * MB);
    expect(oldSpaceCapBytes(["--expose-gc"], undefined)).toBeNull();
  });

  it("is logged by a capped process whose live set fills the cap, after a full collection", async () => {
    // A real Node process with a 256 MB cap: it keeps arrays until 80 % of the cap is in use, then collects (a fuller
    // heap risks V8's own "ineffective mark-compacts" abort before the collection, seen at 85 % of 128 MB under tsx).
    const module = fileURLToPath(new URL("./heap-watch.ts", import.meta.url));
    const script = `
      import { getHeapStatistics } from "node:v8";
      const { watchHeap } = await import(${JSON.stringify(module)});
      const lines = [];
      const log = { debug() {}, info() {}, error() {}, warn: (message, fields) => lines.push({ message, fields }) };
      watchHeap(log);
      const kept = [];
      while (getHeapStatistics().used_heap_size < 0.8 * 256 * 1048576) kept.push(new Array(131072).fill(0.5));
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 200));
      console.log(JSON.stringify({ kept: kept.length, lines }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--max-old-space-size=256", "--expose-gc", "--import", "tsx", "--input-type=module", "-e", script], { cwd: fileURLToPath(new URL("../..", import.meta.url)) });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { kept: number; lines: { message: string; fields: { heapLimitMb: number; sharePct: number } }[] };
    expect(result.kept).toBeGreaterThan(50);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]?.message).toContain("raise WORKER_MAX_HEAP_MB");
    expect(result.lines[0]?.fields).toMatchObject({ heapLimitMb: 256 });
    expect(result.lines[0]?.fields.sharePct).toBeGreaterThanOrEqual(75);
  });
});
