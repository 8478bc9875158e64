/**
 * Child process for crash.integration.test.ts: appends durable batches and
 * commits group offsets in a loop until it is SIGKILLed, printing each
 * acknowledgement only after the promise resolved.
 *   stdout lines: "ack <baseOffset> <value>" | "commit <offset>"
 */
import { LogManager } from "./log-manager.ts";
import { buildBatch } from "./test-helpers.ts";

const [dir, round] = process.argv.slice(2);
if (!dir || round === undefined) throw new Error("usage: crash-child.ts <dataDir> <round>");

// With the broker's default log.direct.io (direct-io.ts): rolls, padding and recovery under kill -9.
const mgr = await LogManager.open(dir, { directIo: true });
if (!mgr.getTopic("crash")) {
  await mgr.createTopic("crash", { partitions: 1, configs: { "segment.bytes": "65536", "index.interval.bytes": "1024" } });
}
const log = mgr.getPartition("crash", 0);
process.stdout.write("ready\n");

let seq = 0;
const pad = "p".repeat(300);
async function producer(): Promise<never> {
  for (;;) {
    const value = `r${round}-${seq++}`;
    const batch = buildBatch({ records: [0, 1, 2].map((i) => ({ key: null, value: i === 0 ? value : `${value}.${i}.${pad}` })) });
    const r = await log.append(batch, { requireDurable: true });
    process.stdout.write(`ack ${r.baseOffset} ${value}\n`);
  }
}
async function committer(): Promise<never> {
  for (;;) {
    const offset = log.logEndOffset;
    await mgr.groups.commit("crash-group", [{ topic: "crash", partition: 0, offset }]);
    process.stdout.write(`commit ${offset}\n`);
  }
}
await Promise.all([producer(), producer(), producer(), producer(), committer()]);
