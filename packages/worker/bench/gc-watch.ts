/*
 * This process's garbage collections, for the worker benchmarks (from
 * perf_hooks' gc entries). The live set: the heap in use right after each
 * mark-compact (V8's full GC) is what the process really holds then; its
 * maximum over a phase is what a heap cap (--max-old-space-size) must leave
 * room for — the peak heap is larger by the garbage V8 let accumulate
 * between full GCs. And the GC pauses on the main thread: what the heap
 * settings cost in time.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

/** NODE_PERFORMANCE_GC_MAJOR (mark-compact). */
const MAJOR = 4;

export class GcWatch {
  /** The heap in use after a full GC, the highest since resetLive(). */
  livePeak = 0;
  /** Full GCs since resetLive(). */
  fullGcs = 0;
  private pauses = { allMs: 0, fullMs: 0, full: 0 };
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      this.pauses.allMs += entry.duration;
      if ((entry as { detail?: { kind?: number } }).detail?.kind !== MAJOR) continue;
      this.pauses.fullMs += entry.duration;
      this.pauses.full++;
      this.fullGcs++;
      this.livePeak = Math.max(this.livePeak, getHeapStatistics().used_heap_size);
    }
  });

  constructor() {
    this.observer.observe({ entryTypes: ["gc"] });
  }

  /** Starts a new live-set phase at `heapUsed` (the heap in use now). */
  resetLive(heapUsed: number): void {
    this.livePeak = heapUsed;
    this.fullGcs = 0;
  }

  /** The GC pauses (all kinds / full GCs) since the last call, as a phrase for a figure's line; starts counting anew. */
  pausesSince(): string {
    const text = `GC pauses ${(this.pauses.allMs / 1000).toFixed(2)} s, of it ${this.pauses.full} full GCs ${(this.pauses.fullMs / 1000).toFixed(2)} s`;
    this.pauses = { allMs: 0, fullMs: 0, full: 0 };
    return text;
  }

  stop(): void {
    this.observer.disconnect();
  }
}
