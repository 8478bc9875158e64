/*
 * A warning before the heap cap is reached. The worker runs with a V8 heap cap
 * (src/runtime.ts, WORKER_MAX_HEAP_MB), and V8 ends a process whose live set
 * no longer fits with "heap out of memory" — no gradual slow-down to notice
 * first. What is left after a full (mark-compact) collection is the live set,
 * so after each one the worker compares it with the cap and, past a share of
 * it, logs a warning that names the setting to raise; at most once per
 * quarter of an hour, so a large catalog does not flood the log.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import type { Logger } from "../log.ts";

/** Share of the cap the live set may take before the worker warns. */
export const HEAP_WARN_SHARE = 0.75;
const REPEAT_MS = 15 * 60_000;
const MB = 1024 * 1024;

export interface HeapReading {
  /** Heap in use right after a full collection: the live set. */
  usedBytes: number;
  /** The old generation's cap (--max-old-space-size), where the process ends with "heap out of memory". */
  limitBytes: number;
}

/** The warning to log for a reading, or null; `lastWarnedAt` is when the previous one was logged. */
export function heapWarning(reading: HeapReading, lastWarnedAt: number | null, now: number): { message: string; fields: Record<string, number> } | null {
  if (reading.limitBytes <= 0 || reading.usedBytes < reading.limitBytes * HEAP_WARN_SHARE) return null;
  if (lastWarnedAt !== null && now - lastWarnedAt < REPEAT_MS) return null;
  return {
    message: "the live heap is close to the worker's heap cap: raise WORKER_MAX_HEAP_MB (or --max-old-space-size) before the catalog grows further, or the process ends with 'heap out of memory'",
    fields: { liveHeapMb: Math.round(reading.usedBytes / MB), heapLimitMb: Math.round(reading.limitBytes / MB), sharePct: Math.round((100 * reading.usedBytes) / reading.limitBytes) },
  };
}

/** Watches every full collection of this process; returns the function that stops watching. */
export function watchHeap(log: Logger, read: () => HeapReading = currentHeap, now: () => number = Date.now): () => void {
  let lastWarnedAt: number | null = null;
  const observer = new PerformanceObserver((list) => {
    if (!list.getEntries().some(isFullCollection)) return;
    const warning = heapWarning(read(), lastWarnedAt, now());
    if (warning === null) return;
    lastWarnedAt = now();
    log.warn(warning.message, warning.fields);
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}

function isFullCollection(entry: PerformanceEntry): boolean {
  const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
  return detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

function currentHeap(): HeapReading {
  const stats = getHeapStatistics();
  return { usedBytes: stats.used_heap_size, limitBytes: oldSpaceCapBytes(process.execArgv, process.env.NODE_OPTIONS) ?? stats.heap_size_limit };
}

/**
 * The --max-old-space-size the process was started with (command line first, then NODE_OPTIONS), in bytes; null
 * when neither sets it. V8's heap_size_limit is larger (it adds the young generation's budget, 48 MB at a 128 MB
 * cap), and the process runs out of memory when the old generation reaches the cap, not that limit.
 */
export function oldSpaceCapBytes(execArgv: readonly string[], nodeOptions: string | undefined): number | null {
  for (const args of [execArgv, (nodeOptions ?? "").split(/\s+/)]) {
    for (let i = args.length - 1; i >= 0; i--) {
      const arg = args[i] ?? "";
      const value = /^--max[-_]old[-_]space[-_]size=(\d+)$/.exec(arg)?.[1] ?? (/^--max[-_]old[-_]space[-_]size$/.test(arg) ? args[i + 1] : undefined);
      if (value !== undefined && /^\d+$/.test(value)) return Number(value) * MB;
    }
  }
  return null;
}
