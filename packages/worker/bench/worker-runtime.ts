/*
 * The worker benchmarks run under the worker process's own runtime settings
 * (src/runtime.ts: the V8 heap cap WORKER_MAX_HEAP_MB, the heap growing
 * factor, MALLOC_ARENA_MAX), as `npm start` starts the worker: glibc reads
 * MALLOC_ARENA_MAX only at process start, and Node refuses some of the flags
 * in NODE_OPTIONS, so the bench re-executes itself once with them.
 * BENCH_WORKER_RUNTIME=applied marks the re-executed process (and lets an A/B
 * run measure without the settings).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DEFAULT_WORKER_MAX_HEAP_MB, workerNodeFlags, workerProcessEnv } from "../src/runtime.ts";

const RUNTIME_APPLIED = "BENCH_WORKER_RUNTIME";

/** Re-executes the script at `moduleUrl` under the worker's settings and exits with its status, unless this is that process. */
export function runUnderWorkerRuntime(moduleUrl: string): void {
  if (process.env[RUNTIME_APPLIED] === "applied") return;
  const maxHeapMb = Number(process.env.WORKER_MAX_HEAP_MB ?? DEFAULT_WORKER_MAX_HEAP_MB);
  const child = spawnSync(process.execPath, [...process.execArgv, ...workerNodeFlags(maxHeapMb), fileURLToPath(moduleUrl)], { stdio: "inherit", env: { ...workerProcessEnv(process.env), [RUNTIME_APPLIED]: "applied" } });
  process.exit(child.status ?? 1);
}
