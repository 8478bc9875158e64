import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EngineUnavailableError, enginesCacheDir, run } from "../tools.ts";

/** The property-based API tester, from PyPI, pinned (the portal's API-fuzz journey runs it against /api/v1/openapi.json). */
export const SCHEMATHESIS_VERSION = "4.32.5";
/** Its dependencies' versions (hypothesis above all): a fixed seed then generates the same requests on every machine. */
const CONSTRAINTS = path.join(import.meta.dirname, "constraints.txt");

function findPython(): string {
  for (const python of [process.env.KAPPA_PYTHON, "python3"].filter((p): p is string => Boolean(p))) {
    const probe = spawnSync(python, ["-c", "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
    if (!probe.error && probe.status === 0) {
      const [major, minor] = probe.stdout.trim().split(".").map(Number);
      if ((major ?? 0) === 3 && (minor ?? 0) >= 10) return python;
    }
  }
  throw new EngineUnavailableError("Schemathesis needs Python 3.10 or later with venv and ensurepip. Install it (Debian: apt-get install -y python3-venv) or set KAPPA_PYTHON.");
}

/** How to run the installed tester: `python -c <entry> run …` (a virtual environment moved into place keeps no valid script shebangs). */
export const SCHEMATHESIS_ENTRY = "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'st'; sys.exit(schemathesis())";

/**
 * Installs schemathesis==SCHEMATHESIS_VERSION from PyPI, with its dependencies
 * at the versions constraints.txt pins, into its own virtual environment in
 * the engines cache, once per constraints file (pip checks the wheels' hashes
 * against PyPI's index), and returns that environment's `python`: run the
 * tester as `python -c SCHEMATHESIS_ENTRY run …`. A second call answers from
 * the cache without Python's package tools.
 */
export async function ensureSchemathesis(log: (line: string) => void = () => {}): Promise<string> {
  const key = createHash("sha256").update(readFileSync(CONSTRAINTS)).digest("hex").slice(0, 12);
  const dir = path.join(enginesCacheDir(), `schemathesis-${SCHEMATHESIS_VERSION}-${key}`);
  const python = path.join(dir, "venv", "bin", "python");
  if (existsSync(path.join(dir, ".complete"))) return python;
  const system = findPython();
  mkdirSync(enginesCacheDir(), { recursive: true });
  // Built under a staging name and moved into place whole, so a half-installed environment is never used.
  const staging = `${dir}.installing-${process.pid}-${randomBytes(3).toString("hex")}`;
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} from PyPI into ${dir} (once)`);
  const started = Date.now();
  try {
    mkdirSync(staging, { recursive: true });
    const venv = await run(system, ["-m", "venv", path.join(staging, "venv")], { timeoutMs: 120_000 });
    if (venv.code !== 0) throw new EngineUnavailableError(`${system} -m venv failed (exit ${venv.code}):\n${venv.text.slice(-2000)}`);
    const pip = await run(path.join(staging, "venv", "bin", "python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c", CONSTRAINTS, `schemathesis==${SCHEMATHESIS_VERSION}`], { timeoutMs: 600_000 });
    if (pip.code !== 0) throw new EngineUnavailableError(`pip could not install schemathesis ${SCHEMATHESIS_VERSION} (exit ${pip.code}):\n${pip.text.slice(-4000)}`);
    writeFileSync(path.join(staging, ".complete"), `schemathesis ${SCHEMATHESIS_VERSION} installed ${new Date().toISOString()} in ${Date.now() - started} ms\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process finished the same installation first: keep its copy.
      if (!existsSync(path.join(dir, ".complete"))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`installed schemathesis in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return python;
}
