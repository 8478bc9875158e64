import { closeSync, constants, existsSync, fchmodSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync, type Stats } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * Where `kappa login` keeps the portal URL and token: $XDG_CONFIG_HOME/kappa
 * (or ~/.config/kappa) /config.json, mode 0600 in a 0700 folder, since the
 * token is a credential. KAPPA_URL and KAPPA_TOKEN override the file.
 *
 * Issue 30, finding 12: an existing folder kept whatever mode it had (0777:
 * anyone on the machine could swap the file), and a config file that was a
 * symbolic link was followed (the token written to, or read from, wherever it
 * pointed). The folder is tightened to 0700 (refused when it is not ours or not
 * a real folder); a symlinked file is refused, and the file is opened with
 * O_NOFOLLOW so a link made between the check and the write is refused too.
 */

export interface CliConfig {
  url: string;
  token: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), ".config");
  return path.join(base, "kappa", "config.json");
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function refuseSymlink(file: string): void {
  if (lstatOrNull(file)?.isSymbolicLink()) throw new Error(`${file} is a symbolic link; kappa keeps its token only in a regular file. Remove the link and run kappa login again.`);
}

/** The config folder, created 0700 or tightened to 0700; refused when it is a link or someone else's. */
function secureFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) throw new Error(`${dir} is not a folder (a symbolic link?); kappa keeps its token only in a folder of its own.`);
  if (typeof process.getuid === "function" && stats.uid !== process.getuid()) throw new Error(`${dir} belongs to another user; kappa will not keep a token there.`);
  if ((stats.mode & 0o777) !== 0o700) chmodFolder(dir);
}

function chmodFolder(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

export function saveConfig(config: CliConfig, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  secureFolder(path.dirname(file));
  refuseSymlink(file);
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") refuseSymlink(file);
    throw error;
  }
  try {
    // An existing file keeps its mode on open: make sure it is 0600 either way.
    fchmodSync(fd, 0o600);
    writeSync(fd, JSON.stringify(config, null, 2) + "\n");
  } finally {
    closeSync(fd);
  }
  return file;
}

/** The effective configuration, or a message saying how to provide it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  let stored: Partial<CliConfig> = {};
  const file = configPath(env);
  if (existsSync(file) || lstatOrNull(file)) {
    refuseSymlink(file);
    try {
      stored = JSON.parse(readFileSync(file, "utf8")) as Partial<CliConfig>;
    } catch {
      throw new Error(`${file} is not valid JSON; run kappa login again.`);
    }
  }
  // An empty variable is unset (as shells and CI templates often leave them).
  const url = env.KAPPA_URL || stored.url;
  const token = env.KAPPA_TOKEN || stored.token;
  if (!url || !token) throw new Error("Not logged in: run `kappa login --url <portal> --with-token` (the token on stdin) or set KAPPA_URL and KAPPA_TOKEN.");
  return { url: normalizeUrl(url), token };
}

export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a URL (e.g. http://localhost:3000).`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`The portal URL must be http(s), not ${parsed.protocol}`);
  return parsed.origin + parsed.pathname.replace(/\/+$/, "");
}
