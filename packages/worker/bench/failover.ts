/*
 * `npm run bench:failover` (root) / `npm run bench:failover -w packages/worker`:
 * issue 35's failover trial for each producer the platform uses or names in
 * its snippets that can run here — kafkajs 2.2.4 (for the record: the client
 * the platform left), the platform's producer (@platformatic/kafka, through
 * src/kafka/producer.ts) and Kafka's Java producer (VerifiableProducer from
 * the pinned release) — on a 3-node Apache Kafka cluster started for the run.
 * Each client gets three trials, one kill -9 each (a different node leads the
 * trial's partitions each time), and the table prints the acknowledged, lost
 * and duplicated counts per trial and in total. librdkafka (kcat, Confluent's
 * clients) has no build on this machine and is not measured here.
 *
 * Each client is offered FAILOVER_RATE records/s (default 2000); the leader
 * is killed once FAILOVER_KILL_AFTER records (default 5000) are in the log,
 * started again, and the client goes on for 15 s after it is back (the
 * cluster checks leader balance every 5 s, so the partitions move back to it:
 * a second leader change). FAILOVER_CLIENTS (default kafkajs,platform,java)
 * picks the clients; FAILOVER_KILLS (default 3) the trials per client. Exits
 * non-zero only on errors, not on losses.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startApacheKafka } from "@kappa/engines";
import { apacheKafkaTarget, FAILOVER_OVERRIDES, failoverTrial, type FailoverClient, type FailoverResult } from "../test/failover-trial.ts";

const CLIENT_NAMES: Record<FailoverClient, string> = {
  kafkajs: "kafkajs 2.2.4 (idempotent, acks -1, maxInFlightRequests 1)",
  platform: "platform producer: @platformatic/kafka 1.35.0 (idempotent, acks all)",
  java: "Kafka's Java producer 4.1.2 (VerifiableProducer, idempotent, acks all)",
};

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number ≥ 1 (got ${JSON.stringify(raw)})`);
  return n;
}

async function main(): Promise<void> {
  const rate = positive("FAILOVER_RATE", 2_000);
  const killAfter = positive("FAILOVER_KILL_AFTER", 5_000);
  const kills = positive("FAILOVER_KILLS", 3);
  const clients = (process.env.FAILOVER_CLIENTS ?? "kafkajs,platform,java").split(",").map((c) => c.trim());
  for (const c of clients) if (!(c in CLIENT_NAMES)) throw new Error(`FAILOVER_CLIENTS: unknown client ${JSON.stringify(c)} (kafkajs, platform, java)`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-bench-failover-"));
  const cluster = await startApacheKafka({ nodes: 3, dataDir, overrides: FAILOVER_OVERRIDES, log: (l) => console.log(`[apache-kafka] ${l}`) });
  const target = apacheKafkaTarget(cluster);
  const results: FailoverResult[] = [];
  try {
    console.log(`failover bench on ${target.name}: ${rate} records/s offered, kill after ${killAfter}, ${kills} kill(s) per client`);
    for (const client of clients as FailoverClient[]) {
      for (let round = 0; round < kills; round++) {
        const r = await failoverTrial(target, { client, rate, killAfter, round, log: (l) => console.log(`  ${l}`) });
        results.push(r);
        console.log(`  ${client} trial ${round + 1}: node ${r.killed} killed; acknowledged ${r.acknowledged}, failed ${r.failed}, lost ${r.lost}${r.lost ? ` (e.g. ${r.lostSample.join(", ")})` : ""}, duplicated ${r.duplicated}, in log ${r.inLog} (offset range ${r.offsetRange})`);
      }
    }
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\n${"client".padEnd(72)} ${"acknowledged".padStart(12)} ${"lost".padStart(6)} ${"duplicated".padStart(10)}  per kill (lost)`);
  for (const client of clients as FailoverClient[]) {
    const mine = results.filter((r) => r.client === client);
    const sum = (f: (r: FailoverResult) => number) => mine.reduce((s, r) => s + f(r), 0);
    console.log(`${CLIENT_NAMES[client].padEnd(72)} ${String(sum((r) => r.acknowledged)).padStart(12)} ${String(sum((r) => r.lost)).padStart(6)} ${String(sum((r) => r.duplicated)).padStart(10)}  ${mine.map((r) => r.lost).join(" / ")}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
