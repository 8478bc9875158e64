import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface ContractFile {
  content: string;
  /** What the product page shows as the contract's origin: path, and the Git remote and commit when there is one. */
  source: string;
}

const CONTRACT_FILE = /\.(ya?ml|json)$/i;

/** Contract files of `-f`: one file, or every .yaml/.yml/.json under a folder (sorted, recursive). */
export function contractFiles(target: string): string[] {
  let stat;
  try {
    stat = statSync(target);
  } catch {
    throw new Error(`${target}: no such file or folder.`);
  }
  if (stat.isFile()) return [target];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (CONTRACT_FILE.test(entry.name)) out.push(full);
    }
  };
  walk(target);
  if (out.length === 0) throw new Error(`${target}: no .yaml, .yml or .json contract files.`);
  return out;
}

function git(args: string[], cwd: string): string | null {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5000 }).trim() || null;
  } catch {
    return null;
  }
}

/** "contracts/orders.yaml @ git@host:org/repo.git 1a2b3c4" (or the path alone outside Git). */
export function describeSource(file: string): string {
  const dir = path.dirname(path.resolve(file));
  const root = git(["rev-parse", "--show-toplevel"], dir);
  if (!root) return path.resolve(file);
  const relative = path.relative(root, path.resolve(file));
  const remote = git(["config", "--get", "remote.origin.url"], dir);
  const commit = git(["rev-parse", "--short", "HEAD"], dir);
  return [relative, remote ? `@ ${remote}` : `@ ${root}`, commit].filter(Boolean).join(" ");
}

export function readContracts(target: string): ContractFile[] {
  return contractFiles(target).map((file) => ({ content: readFileSync(file, "utf8"), source: describeSource(file) }));
}
