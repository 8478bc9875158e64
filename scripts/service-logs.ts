import type { ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/*
 * Where the services' output goes when `npm start` runs them: every line to
 * `<data dir>/logs/<service>.log` (rotated by size), and to the console only
 * what a person starting the product needs — warnings and errors — unless
 * `--verbose` / KAPPA_LOG=debug asks for everything. The launcher's own
 * progress lines are printed by the launcher.
 */

/** Rotate at this size, keeping this many older files (`<service>.1.log` is the newest of those). */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
export const LOG_KEEP_FILES = 3;

export type Severity = "debug" | "info" | "warn" | "error";

/** An append-only log file that rotates itself once it passes `rotateBytes`. */
export class RotatingLog {
  private fd: number;
  private size: number;

  constructor(
    readonly file: string,
    private readonly rotateBytes = LOG_ROTATE_BYTES,
    private readonly keep = LOG_KEEP_FILES,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.size = existsSync(file) ? statSync(file).size : 0;
    this.fd = openSync(file, "a", 0o600);
  }

  write(line: string): void {
    const bytes = Buffer.from(line.endsWith("\n") ? line : `${line}\n`);
    if (this.size > 0 && this.size + bytes.length > this.rotateBytes) this.rotate();
    writeSync(this.fd, bytes);
    this.size += bytes.length;
  }

  private rotate(): void {
    closeSync(this.fd);
    const older = (n: number) => this.file.replace(/\.log$/, `.${n}.log`);
    rmSync(older(this.keep), { force: true });
    for (let n = this.keep - 1; n >= 1; n--) if (existsSync(older(n))) renameSync(older(n), older(n + 1));
    renameSync(this.file, older(1));
    this.fd = openSync(this.file, "a", 0o600);
    this.size = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * How severe a line a service printed is. The worker logs JSON with `level`,
 * the broker `<time> kappa-broker LEVEL ...`; anything else (Next.js,
 * PostgreSQL) is judged by its words, and stderr counts as a warning at least
 * only when it says so — Next.js prints its ordinary progress there too.
 */
export function severityOf(line: string): Severity {
  const trimmed = line.trim();
  if (trimmed.startsWith("{")) {
    try {
      const level = (JSON.parse(trimmed) as { level?: unknown }).level;
      if (level === "debug" || level === "info" || level === "warn" || level === "error") return level;
    } catch {
      // not JSON after all: judged by its words below
    }
  }
  const broker = /^\S+ \S+ (DEBUG|INFO|WARN|ERROR) /.exec(trimmed);
  if (broker) return broker[1]!.toLowerCase() as Severity;
  if (/\b(error|fatal|panic|failed|exception)\b|⨯/i.test(trimmed)) return "error";
  if (/\bwarn(ings?)?\b|⚠/i.test(trimmed)) return "warn";
  return "info";
}

export interface ServiceLogs {
  /** The log of one service (opened on first use). */
  file(service: string): RotatingLog;
  /** Writes a service's line to its file, and to the console when it matters or when verbose. */
  line(service: string, text: string, severity?: Severity): void;
  /** Routes a child's stdout and stderr line by line. */
  pipe(service: string, child: ChildProcess): void;
  /** The last lines a service wrote (for a failure message). */
  tail(service: string, lines?: number): string[];
  readonly dir: string;
  readonly verbose: boolean;
  close(): void;
}

export function serviceLogs(dataDir: string, verbose: boolean, write: (text: string) => void = (t) => process.stderr.write(t)): ServiceLogs {
  const dir = path.join(dataDir, "logs");
  const files = new Map<string, RotatingLog>();
  const recent = new Map<string, string[]>();
  const file = (service: string) => {
    let log = files.get(service);
    if (!log) {
      log = new RotatingLog(path.join(dir, `${service}.log`));
      files.set(service, log);
    }
    return log;
  };
  const line = (service: string, text: string, severity: Severity = severityOf(text)) => {
    if (text.trim() === "") return;
    file(service).write(text);
    const kept = recent.get(service) ?? [];
    kept.push(text);
    if (kept.length > 40) kept.shift();
    recent.set(service, kept);
    if (verbose || severity === "warn" || severity === "error") write(`[${service}] ${text}\n`);
  };
  return {
    dir,
    verbose,
    file,
    line,
    pipe(service, child) {
      for (const stream of [child.stdout, child.stderr]) {
        if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on("line", (text) => line(service, text));
      }
    },
    tail: (service, lines = 20) => (recent.get(service) ?? []).slice(-lines),
    close() {
      for (const log of files.values()) log.close();
      files.clear();
    },
  };
}
