// Malformed input: random bytes, mutated valid frames, truncated frames, absurd
// size prefixes and unknown api keys on several connections at once, while a
// well-behaved kafkajs client keeps producing and consuming. The broker must stay
// up, close only the offending connections (with a log line) and lose no data.
import { randomBytes, randomInt } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ApiKey, encodeRecordBatch, encodeRequest } from "@kappa/kafka-protocol";
import { embeddedOnly, kafkaClient, sleep, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

/** Sends `chunks` on a fresh connection; resolves when the broker closes it or after `lingerMs`. */
function sendJunk(chunks: Buffer[], lingerMs = 300): Promise<"closed" | "open"> {
  return new Promise((resolve) => {
    const s = connect(broker.port, "127.0.0.1");
    let done = false;
    const finish = (how: "closed" | "open") => {
      if (done) return;
      done = true;
      s.destroy();
      resolve(how);
    };
    s.on("error", () => finish("closed"));
    s.on("close", () => finish("closed"));
    s.on("data", () => {});
    s.on("connect", () => {
      void (async () => {
        for (const c of chunks) {
          if (s.destroyed) break;
          s.write(c);
          await sleep(1);
        }
        setTimeout(() => finish("open"), lingerMs);
      })();
    });
  });
}

function sizePrefix(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return b;
}

const junkTopic = "junk-topic";
const MUST_CLOSE_MS = 10_000;

function validFrames(): Buffer[] {
  return [
    encodeRequest({ apiKey: ApiKey.Metadata, apiVersion: 8, correlationId: 1, clientId: "junk" }, { topics: [{ name: junkTopic }], allowAutoTopicCreation: false }),
    encodeRequest({ apiKey: ApiKey.ApiVersions, apiVersion: 3, correlationId: 2, clientId: "junk" }, { clientSoftwareName: "junk", clientSoftwareVersion: "1" }),
    encodeRequest(
      { apiKey: ApiKey.Produce, apiVersion: 8, correlationId: 3, clientId: "junk" },
      { acks: 1, timeoutMs: 1000, topicData: [{ name: junkTopic, partitionData: [{ index: 0, records: encodeRecordBatch({ baseTimestamp: 0n, records: [{ value: "junk" }] }) }] }] },
    ),
    encodeRequest(
      { apiKey: ApiKey.Fetch, apiVersion: 11, correlationId: 4, clientId: "junk" },
      { maxWaitMs: 10, minBytes: 1, maxBytes: 1000, topics: [{ topic: junkTopic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1000 }] }] },
    ),
    encodeRequest({ apiKey: ApiKey.JoinGroup, apiVersion: 5, correlationId: 5, clientId: "junk" }, { groupId: "junk-group", sessionTimeoutMs: 6000, rebalanceTimeoutMs: 100, memberId: "", protocolType: "consumer", protocols: [] }),
  ];
}

/** Flips random bytes after the size prefix and api key (so a mutation cannot turn into an admin request on real topics). */
function mutate(frame: Buffer): Buffer {
  const out = Buffer.from(frame);
  const flips = 1 + randomInt(6);
  for (let i = 0; i < flips; i++) {
    const pos = 6 + randomInt(out.length - 6);
    out[pos] = randomInt(256);
  }
  return out;
}

describe("malformed input", () => {
  embeddedOnly("its log lines").it("closes offending connections with a log line while a well-behaved client keeps working", async () => {
    const kafka = kafkaClient(broker.bootstrap);
    const topic = uniqueName("good");
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const consumer = kafka.consumer({ groupId: uniqueName("good-g"), maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const consumed: string[] = [];
    void consumer.run({ eachMessage: async ({ message }) => void consumed.push(message.value?.toString() ?? "") });

    let produced = 0;
    let stopProducing = false;
    const producing = (async () => {
      while (!stopProducing) {
        await producer.send({ topic, acks: -1, messages: [{ value: `good-${produced}` }, { value: `good-${produced + 1}` }] });
        produced += 2;
        await sleep(5);
      }
    })();

    const outcomes: Array<Promise<"closed" | "open">> = [];
    const frames = validFrames();
    for (let round = 0; round < 40; round++) {
      // Random bytes.
      outcomes.push(sendJunk([randomBytes(64 + randomInt(4096))]));
      // Absurd and negative size prefixes: rejected before anything is buffered. These
      // must be closed by the broker, so wait for that (up to 10 s on a loaded machine).
      outcomes.push(sendJunk([sizePrefix(0x7fffffff), randomBytes(100)], MUST_CLOSE_MS));
      outcomes.push(sendJunk([sizePrefix(-5)], MUST_CLOSE_MS));
      outcomes.push(sendJunk([sizePrefix(104857601)], MUST_CLOSE_MS));
      outcomes.push(sendJunk([sizePrefix(3), Buffer.from([1, 2, 3])], MUST_CLOSE_MS));
      // Unknown api keys.
      const unknown = Buffer.concat([sizePrefix(10), Buffer.from([0x7f, 0x00, 0, 0, 0, 0, 0, 1, 0, 0])]);
      outcomes.push(sendJunk([unknown], MUST_CLOSE_MS));
      // Truncated frames: the size promises more than ever arrives, then the client hangs up.
      const f = frames[round % frames.length]!;
      outcomes.push(sendJunk([f.subarray(0, Math.max(5, randomInt(f.length)))], 100));
      // Mutated valid frames, several on one connection, pipelined, split at random points.
      const stream = Buffer.concat(Array.from({ length: 5 }, () => mutate(frames[randomInt(frames.length)]!)));
      const cut = randomInt(stream.length);
      outcomes.push(sendJunk([stream.subarray(0, cut), stream.subarray(cut)]));
      await sleep(20);
    }
    const results = await Promise.all(outcomes);
    // Every connection that sent an impossible prefix or unknown key was closed by the broker.
    const mustClose = results.filter((_, i) => [1, 2, 3, 4, 5].includes(i % 8));
    expect(mustClose.every((r) => r === "closed")).toBe(true);
    expect(broker.logLines.some((l) => /WARN closing connection .*exceeds socket.request.max.bytes/.test(l))).toBe(true);
    expect(broker.logLines.some((l) => /WARN closing connection .*invalid request size -5/.test(l))).toBe(true);
    expect(broker.logLines.some((l) => /WARN closing connection .*unknown api key 32512/.test(l))).toBe(true);
    expect(broker.logLines.filter((l) => l.startsWith("ERROR"))).toEqual([]);

    stopProducing = true;
    await producing;
    await waitFor(() => consumed.length >= produced, 20_000, `consumer to catch up (${consumed.length}/${produced})`);
    await consumer.disconnect();
    await producer.disconnect();
    expect(produced).toBeGreaterThan(20);
    expect(new Set(consumed)).toEqual(new Set(Array.from({ length: produced }, (_, i) => `good-${i}`)));
    expect(consumed).toHaveLength(produced);

    // The broker still serves new clients.
    const admin2 = kafkaClient(broker.bootstrap).admin();
    await admin2.connect();
    expect(await admin2.listTopics()).toContain(topic);
    await admin2.disconnect();
  });
});
