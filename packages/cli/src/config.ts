import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * Where `kappa login` keeps the portal URL and token: $XDG_CONFIG_HOME/kappa
 * (or ~/.config/kappa) /config.json, mode 0600 in a 0700 folder, since the
 * token is a credential. KAPPA_URL and KAPPA_TOKEN override the file.
 */

export interface CliConfig {
  url: string;
  token: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), ".config");
  return path.join(base, "kappa", "config.json");
}

export function saveConfig(config: CliConfig, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  // writeFileSync keeps an existing file's mode: make sure it is 0600 either way.
  chmodSync(file, 0o600);
  return file;
}

/** The effective configuration, or a message saying how to provide it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  let stored: Partial<CliConfig> = {};
  const file = configPath(env);
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, "utf8")) as Partial<CliConfig>;
    } catch {
      throw new Error(`${file} is not valid JSON; run kappa login again.`);
    }
  }
  // An empty variable is unset (as shells and CI templates often leave them).
  const url = env.KAPPA_URL || stored.url;
  const token = env.KAPPA_TOKEN || stored.token;
  if (!url || !token) throw new Error("Not logged in: run `kappa login --url <portal> --token <token>` or set KAPPA_URL and KAPPA_TOKEN.");
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
