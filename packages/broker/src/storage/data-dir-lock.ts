/**
 * The lock on a data directory: `<dataDir>/.lock` holds the pid of the
 * process using it, and a set of open directories guards against opening
 * one twice in the same process. A lock file whose process no longer exists
 * is stale (a crash or kill -9) and is taken over.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const LOCK = ".lock";
const openDirs = new Set<string>();

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
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
  if (holder > 0 && holder !== process.pid && isPidAlive(holder)) {
    throw new Error(`data directory ${dataDir} is in use by process ${holder}`);
  }
  await writeFile(path, String(process.pid));
  openDirs.add(key);
}

export async function unlockDataDir(dataDir: string): Promise<void> {
  openDirs.delete(resolve(dataDir));
  await rm(join(dataDir, LOCK), { force: true });
}
