/**
 * The lock on a data directory: `<dataDir>/.lock` holds the pid of the
 * process using it, and a set of open directories guards against opening
 * one twice in the same process. A lock file whose process no longer runs is
 * stale (a crash or kill -9) and is taken over — including a process that was
 * killed but not yet reaped by its parent: a zombie still answers kill(pid, 0)
 * but holds no files, so a restart right after kill -9 must not wait for the
 * parent to call wait().
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const LOCK = ".lock";
const openDirs = new Set<string>();

/**
 * The state letter of a Linux process from /proc/<pid>/stat ("R", "S", "Z",
 * …), or null where /proc is not available. The command name (field 2) is in
 * parentheses and may itself contain spaces or parentheses, so the state is
 * the first field after the *last* ")".
 */
export function processState(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const end = stat.lastIndexOf(")");
  return end < 0 ? null : (stat.slice(end + 1).trim().split(/\s+/)[0] ?? null);
}

/** True while `pid` is a running process; zombies (Z) and dead tasks (X) are not running. */
export function isPidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const state = processState(pid);
  // No stat for a pid that kill() just found: it exited in between (unless this system has no /proc at all).
  if (state === null) return !existsSync("/proc/self/stat");
  return state !== "Z" && state !== "X" && state !== "x";
}

export async function lockDataDir(dataDir: string): Promise<void> {
  const key = resolve(dataDir);
  if (openDirs.has(key)) throw new Error(`data directory ${dataDir} is already open in this process`);
  const path = join(dataDir, LOCK);
  const holder = await readFile(path, "utf8").then(
    (s) => Number(s.trim()),
    (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return 0;
      throw err;
    },
  );
  if (holder > 0 && holder !== process.pid && isPidRunning(holder)) {
    throw new Error(`data directory ${dataDir} is in use by process ${holder}`);
  }
  await writeFile(path, String(process.pid));
  openDirs.add(key);
}

export async function unlockDataDir(dataDir: string): Promise<void> {
  openDirs.delete(resolve(dataDir));
  await rm(join(dataDir, LOCK), { force: true });
}
