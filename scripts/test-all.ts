/*
 * `npm test`: every workspace's suite and the root scripts' tests, in two
 * streams side by side —
 *
 *   portal   the portal's suite (unit tests, then side by side the
 *            Playwright journeys, the worker journeys on both Kafkas and the
 *            API fuzzer): the longer stream, much of it waiting on a browser,
 *            a worker step or a segment's roll into the remote tier;
 *   others   every other workspace's suite one at a time (Turborepo), the
 *            broker's oracle run (its tests against Apache Kafka), then the
 *            root scripts' tests.
 *
 * One after another they took ~40 minutes on CI's 2 cores; side by side the
 * run is about as long as the portal's stream. Every suite starts its own
 * servers on ports of its own (free ports, or the portal's fixed e2e ports
 * that no other suite uses), so the streams do not meet.
 *
 * Each stream is a process group of its own; Ctrl-C / SIGTERM reaches both.
 * Both run to the end, and so does every suite of the second (a failure does
 * not hide another's); the exit code is non-zero if anything failed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const ROOT = path.resolve(import.meta.dirname, "..");

interface Stream {
  name: string;
  command: string;
  child?: ChildProcess;
}

const streams: Stream[] = [
  { name: "portal", command: "turbo run test --filter=@kappa/portal" },
  // --continue and the scripts' tests whatever the suites did: one run reports every failure. test:oracle is the
  // broker's oracle run (its integration tests against a single Apache Kafka node; packages/broker/README.md "The
  // oracle"), after the broker's own suite.
  { name: "others", command: "turbo run test test:oracle --filter=!@kappa/portal --concurrency=1 --continue; suites=$?; vitest run --dir scripts; scripts=$?; [ $suites -eq 0 ] && [ $scripts -eq 0 ]" },
];

function run(stream: Stream): Promise<number> {
  // npx-style resolution of turbo and vitest from the root's node_modules/.bin, through a shell for the `&&`.
  // The engines' JVMs (Apache Kafka, Apache Flink) without the C2 compiler: test clusters live for minutes, and C2's
  // work is most of a JVM's CPU there. Measured on this 2-core machine (CPU seconds): a 3-node Kafka cluster's start
  // 31.5 → 18.2 and each idle minute 10.6 → 7.3; a Flink session cluster's start 17.3 → 9.0 and planning one windowed
  // statement 6.7 → 3.4 (packages/engines README, "JVM options").
  const env = {
    ...process.env,
    KAPPA_ENGINE_JVM_OPTS: process.env.KAPPA_ENGINE_JVM_OPTS ?? "-XX:TieredStopAtLevel=1",
    PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  const child = spawn("sh", ["-c", stream.command], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  stream.child = child;
  for (const output of [child.stdout, child.stderr]) {
    createInterface({ input: output }).on("line", (line) => process.stdout.write(`[${stream.name}] ${line}\n`));
  }
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on("error", (error) => {
      process.stdout.write(`[${stream.name}] could not start: ${error.message}\n`);
      resolve(1);
    });
  });
}

let stopping = false;
function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`[test-all] ${signal}: stopping both streams\n`);
  for (const s of streams) {
    if (s.child?.pid && s.child.exitCode === null) {
      try {
        process.kill(-s.child.pid, signal);
      } catch {
        // already gone
      }
    }
  }
}
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));

const started = Date.now();
const minutes = () => ((Date.now() - started) / 60_000).toFixed(1);
const codes = await Promise.all(
  streams.map(async (s) => {
    const code = await run(s);
    process.stdout.write(`[test-all] ${s.name}: ${code === 0 ? "passed" : `failed (exit ${code})`} after ${minutes()} min\n`);
    return code;
  }),
);
const failed = streams.filter((_, i) => codes[i] !== 0).map((s) => s.name);
process.stdout.write(`[test-all] ${failed.length === 0 ? "every suite passed" : `failed: ${failed.join(", ")}`}; ${minutes()} min\n`);
process.exit(failed.length === 0 ? 0 : 1);
