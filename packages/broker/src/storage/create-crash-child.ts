/**
 * Child process for create-crash.integration.test.ts: creates topics in
 * batches (one createTopics call each, 3 partitions per topic) and writes one
 * durable record into partition 1 of every batch's first topic, in a loop
 * until it is SIGKILLed, printing each answer only after its promise resolved.
 *   stdout lines: "created <name> <name> …" | "ack <topic> <offset> <value>"
 */
import { LogManager } from "./log-manager.ts";
import { buildBatch } from "./test-helpers.ts";

const [dir, round] = process.argv.slice(2);
if (!dir || round === undefined) throw new Error("usage: create-crash-child.ts <dataDir> <round>");

const mgr = await LogManager.open(dir);
process.stdout.write("ready\n");
for (let batch = 0; ; batch++) {
  const names = Array.from({ length: 4 }, (_, i) => `r${round}-b${batch}-t${i}`);
  const results = await mgr.createTopics(names.map((name) => ({ name, partitions: 3 })));
  const failed = results.find((r) => r instanceof Error);
  if (failed) throw failed;
  process.stdout.write(`created ${names.join(" ")}\n`);
  const value = `v-${names[0]}`;
  const r = await mgr.getPartition(names[0]!, 1).append(buildBatch({ records: [{ key: null, value }] }), { requireDurable: true });
  process.stdout.write(`ack ${names[0]} ${r.baseOffset} ${value}\n`);
}
