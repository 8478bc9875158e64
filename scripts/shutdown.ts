/*
 * The launcher's orderly stop, and the hand-over between two launchers on one
 * data folder.
 *
 * Ctrl-C reaches npm, the launcher and its children at once, and npm gives
 * the prompt back without waiting for the launcher. A second `npm start`
 * typed at once would then open the broker's and PostgreSQL's data while the
 * first launcher is still closing them ("not shut down cleanly"). So:
 *  - every stop runs once, in reverse order of start, each step awaited; a
 *    second signal (or the launching npm disappearing) joins the stop under
 *    way instead of exiting in the middle of it;
 *  - a step that takes long is named ("still stopping the broker…") and after
 *    a bounded wait the launcher forces what is left and exits;
 *  - the launcher holds `<data>/launcher.pid` until its last step is done, and
 *    a new launcher on the same folder waits (bounded, saying so) for the old
 *    one to be gone before it touches the data.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface StopStep {
  name: string;
  stop: () => Promise<void>;
  /** Ends the step at once (SIGKILL a child) when the bounded wait is over. */
  force?: () => void;
}

export interface ShutdownOptions {
  log: (message: string) => void;
  /** After this long on one step, say which one is still stopping. */
  slowStepMs?: number;
  /** After this long in all, force what is left and exit. */
  giveUpMs?: number;
  exit?: (code: number) => never;
}

export interface Shutdown {
  /** Registers a step; steps stop in reverse order of registration. */
  add(step: StopStep): void;
  /** Registers a step that stops after every other one (the logs). */
  addLast(step: StopStep): void;
  /** Stops everything once and exits with `code`; later calls wait for the same stop. */
  run(code: number): Promise<never>;
  readonly stopping: boolean;
}

export function createShutdown(options: ShutdownOptions): Shutdown {
  const { log, slowStepMs = 5_000, giveUpMs = 30_000 } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const steps: StopStep[] = [];
  const last: StopStep[] = [];
  let running: Promise<never> | null = null;

  async function stopAll(code: number): Promise<never> {
    log("stopping…");
    const deadline = Date.now() + giveUpMs;
    let exitCode = code;
    for (const step of [...steps.reverse(), ...last]) {
      const done = step.stop().then(
        () => true,
        (error: unknown) => {
          console.error(`[kappa] error while stopping ${step.name}:`, error);
          return true;
        },
      );
      const slow = setTimeout(() => log(`still stopping ${step.name}…`), slowStepMs);
      let over: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([done, new Promise<false>((resolve) => (over = setTimeout(() => resolve(false), Math.max(deadline - Date.now(), 0))))]);
      clearTimeout(slow);
      clearTimeout(over);
      if (!stopped) {
        log(`${step.name} did not stop within ${Math.round(giveUpMs / 1000)} s; ending it`);
        step.force?.();
        exitCode = code === 0 ? 1 : code;
      }
    }
    return exit(exitCode);
  }

  return {
    add: (step) => steps.push(step),
    addLast: (step) => last.push(step),
    run(code) {
      running ??= stopAll(code);
      return running;
    },
    get stopping() {
      return running !== null;
    },
  };
}

const LOCK = "launcher.pid";

/** Whether `pid` is a live process (and, where /proc tells, still a launcher). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but is someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // A pid can be reused: only a launcher counts.
    return /start\.(ts|mjs|js)/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  } catch {
    return true;
  }
}

/**
 * Waits (bounded) until no other launcher holds `dataDir`, then takes it.
 * Returns the release function, to be called as the very last stop step.
 */
export async function takeDataDir(dataDir: string, log: (message: string) => void, waitMs = 30_000): Promise<() => void> {
  const file = path.join(dataDir, LOCK);
  const holder = (): number | null => {
    try {
      const pid = Number(readFileSync(file, "utf8").trim());
      return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
    } catch {
      return null;
    }
  };
  let pid = holder();
  if (pid !== null) {
    log(`waiting for the previous launcher (pid ${pid}) to finish stopping…`);
    const deadline = Date.now() + waitMs;
    while (pid !== null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      pid = holder();
    }
    if (pid !== null) throw new Error(`another launcher (pid ${pid}) still uses ${dataDir}; stop it first, or use another KAPPA_DATA_DIR`);
  }
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    // Only our own claim: never remove a newer launcher's.
    try {
      if (Number(readFileSync(file, "utf8").trim()) === process.pid) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

/** The stop step of a child process: `ask` asks it to stop, the step ends when it has exited; forced with SIGKILL. */
export function childStep<C extends { exitCode: number | null; signalCode: NodeJS.Signals | null; once(event: "exit", listener: () => void): unknown; kill(signal?: NodeJS.Signals): boolean }>(name: string, child: C, ask: (child: C) => void): StopStep {
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    name,
    stop: () =>
      new Promise<void>((resolve) => {
        if (gone()) return resolve();
        child.once("exit", () => resolve());
        ask(child);
      }),
    force: () => {
      if (!gone()) child.kill("SIGKILL");
    },
  };
}

/** Resolves once no launcher holds `dataDir` any more (or after `waitMs`): for scripts that stop `npm start` and go on with its data. */
export async function launcherGone(dataDir: string, waitMs = 60_000): Promise<void> {
  const file = path.join(dataDir, LOCK);
  const held = () => {
    try {
      const pid = Number(readFileSync(file, "utf8").trim());
      return Number.isInteger(pid) && pid > 0 && alive(pid);
    } catch {
      return false;
    }
  };
  for (const deadline = Date.now() + waitMs; held() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
}
