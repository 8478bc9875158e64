// Where a broker's main thread spends its time: the top entries of a V8 CPU profile
// (`node --cpu-prof`, e.g. written by `BENCH_BROKER_PROF=<dir> npm run bench`), by self time.
//
//   npx tsx bench/profile-top.ts <file.cpuprofile | dir> [top=25]
//
// A directory means every .cpuprofile in it, added together. Each line is a function (name,
// file:line) with its share of the busy samples (all but "(idle)") and of all samples; V8's
// own entries keep their names: "(garbage collector)", "(program)" (V8 and native code outside
// JavaScript, e.g. the libuv callbacks), "(idle)" (waiting in the event loop). The profile
// covers the main thread only: the libuv pool's writes and fsyncs are on other threads.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** Microseconds of self time per function key, from the samples and their time deltas. */
function selfTimes(profile: Profile, into: Map<string, number>): void {
  const keyOf = new Map<number, string>();
  for (const n of profile.nodes) {
    const { functionName, url, lineNumber } = n.callFrame;
    const name = functionName || "(anonymous)";
    keyOf.set(n.id, url ? `${name} ${shortUrl(url)}:${lineNumber + 1}` : name);
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // A sample's time is the delta to the next one (V8's timeDeltas[i] is the gap before sample i).
  for (let i = 0; i < samples.length; i++) {
    const us = deltas[i + 1] ?? 0;
    const key = keyOf.get(samples[i]!) ?? "(unknown)";
    into.set(key, (into.get(key) ?? 0) + Math.max(0, us));
  }
}

function shortUrl(url: string): string {
  const s = url.replace(/^file:\/\//, "");
  const at = s.search(/(packages|node_modules)\//);
  return at >= 0 ? s.slice(at) : s.startsWith("node:") ? s : basename(s);
}

function main(): void {
  const target = process.argv[2];
  const top = Number(process.argv[3] ?? 25);
  if (!target) {
    process.stderr.write("usage: npx tsx bench/profile-top.ts <file.cpuprofile | dir> [top=25]\n");
    process.exit(2);
  }
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => join(target, f))
    : [target];
  if (files.length === 0) throw new Error(`no .cpuprofile in ${target}`);
  const times = new Map<string, number>();
  let wallUs = 0;
  for (const f of files) {
    const p = JSON.parse(readFileSync(f, "utf8")) as Profile;
    selfTimes(p, times);
    wallUs += p.endTime - p.startTime;
  }
  let total = 0;
  for (const us of times.values()) total += us;
  const idle = times.get("(idle)") ?? 0;
  const busy = total - idle;
  process.stdout.write(
    `${files.length} profile(s), ${(wallUs / 1e6).toFixed(2)} s of wall time sampled; main thread busy ${(busy / 1e6).toFixed(2)} s (${((busy / total) * 100).toFixed(1)} %), idle ${(idle / 1e6).toFixed(2)} s\n`,
  );
  process.stdout.write(`${"% busy".padStart(7)} ${"% all".padStart(7)} ${"ms".padStart(8)}  function\n`);
  const rows = [...times.entries()].filter(([k]) => k !== "(idle)").sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, us] of rows) {
    process.stdout.write(`${((us / busy) * 100).toFixed(1).padStart(7)} ${((us / total) * 100).toFixed(1).padStart(7)} ${(us / 1000).toFixed(0).padStart(8)}  ${key}\n`);
  }
}

main();
