/*
 * How the worker's Node process is started: its V8 heap cap and glibc's
 * malloc arenas. One definition, used by `npm start` (scripts/start.ts starts
 * the worker with it), by the worker's benchmark (which re-executes itself
 * with it, so what is measured is what runs) and stated for other launchers
 * (docker-compose.yml passes the same through NODE_OPTIONS / MALLOC_ARENA_MAX).
 *
 * Why a heap cap (as a JVM service gets -Xmx): without one V8 sizes the old
 * generation from the machine's memory and lets garbage pile up to several
 * times the live set between full collections; at 10,000 products the worker
 * holds ~100 MB live but its heap peaked at ~450 MB. With a cap V8 collects
 * earlier instead. The default leaves ~2× headroom over the largest live set
 * the benchmark measured at 10,000 products × 6 partitions (60,000 partitions,
 * 5,000 groups, 50,000 subscriptions), during convergence and observation; a
 * bigger catalog needs a bigger cap (WORKER_MAX_HEAP_MB; the worker logs its
 * heap limit at start). Too small a cap does not degrade gracefully: V8 ends
 * the process with "heap out of memory" once the live set no longer fits, so
 * size it from the live set, not from the target.
 *
 * Why a fixed heap growing factor (--heap-growing-percent=60): with a cap
 * below 2 GB V8 also lowers how far the heap may grow past the live set
 * before the next full GC (to 1.3× at 256 MB), and the worker then ran ~900
 * full GCs during one convergence, each re-marking the whole live set; 1.6×
 * keeps the peak at ~1.6× the live set with about half as many full GCs.
 * (A V8 flag Node does not accept in NODE_OPTIONS: launchers pass it on the
 * command line.)
 *
 * Why MALLOC_ARENA_MAX=2: every thread that calls malloc (libuv's pool runs
 * scrypt, file I/O, DNS; V8's GC helpers) gets a glibc arena of its own, up to
 * 8 per core, each keeping its freed memory resident. Two arenas is the usual
 * setting for JVM and Node services; the worker's allocations are a handful of
 * scrypt buffers and socket reads, not contended malloc.
 */

/** The V8 old-generation cap (MB) the worker runs with unless WORKER_MAX_HEAP_MB says otherwise. */
/*
 * 512, not the 256 that fits the reconcile and the observer at 10,000 products alone (live peak 134–141 MB): a
 * latest-state view materialising a 1,000,000-record compacted topic from offset 0 adds ~66 MB of live heap
 * (packages/worker/bench/state-view.ts, 1 MiB rounds; it ran out of heap under 256 when that benchmark's broker shared
 * its process and it read 4 MiB rounds), and the cap keeps about 2× headroom over both. With the fixed growing factor
 * the cap is a ceiling, not where the heap settles: the worker benchmark's peak is set by 1.6× the live set.
 */
export const DEFAULT_WORKER_MAX_HEAP_MB = 512;

/** How far the old generation may grow past the live set before a full GC, in percent. */
export const WORKER_HEAP_GROWING_PERCENT = 60;

/** glibc malloc arenas for the worker process (unless MALLOC_ARENA_MAX is already set). */
export const WORKER_MALLOC_ARENA_MAX = "2";

/** The smallest cap accepted: below it the worker's own code and libraries barely fit. */
export const MIN_WORKER_MAX_HEAP_MB = 128;

/** Node flags for the worker process. */
export function workerNodeFlags(maxHeapMb: number = DEFAULT_WORKER_MAX_HEAP_MB): string[] {
  if (!Number.isInteger(maxHeapMb) || maxHeapMb < MIN_WORKER_MAX_HEAP_MB) throw new Error(`the worker's heap cap must be a whole number of MB ≥ ${MIN_WORKER_MAX_HEAP_MB}, got ${maxHeapMb}`);
  return [`--max-old-space-size=${maxHeapMb}`, `--heap-growing-percent=${WORKER_HEAP_GROWING_PERCENT}`];
}

/** Environment additions for the worker process; an operator's own MALLOC_ARENA_MAX wins. */
export function workerProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? WORKER_MALLOC_ARENA_MAX };
}
