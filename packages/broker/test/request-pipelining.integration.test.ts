// Pipelined acks=all produce on one connection: every request an acks=all
// producer sends during one fsync must be in flight at once (each holds its
// slot until the fsync), and the broker's request timing (Kafka's
// RequestMetrics) accounts for where a request's time went.
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ApiKey, ErrorCode, decodeResponse, encodeRecordBatch } from "@kappa/kafka-protocol";
import { embeddedOnly, RawClient, sleep, startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

const REQUESTS = 200;
const HOLD_MS = 300;

describe("pipelined produce", () => {
  embeddedOnly("its request metrics").it("keeps 200 pipelined acks=-1 produce requests of one connection in flight together, answers them in order, and times them", async () => {
    const c = await RawClient.connect(broker.port);
    const topic = uniqueName("pipelined");
    const created = await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, configs: [] }], timeoutMs: 5000 });
    expect(created.body.topics[0]?.errorCode).toBe(ErrorCode.NONE);
    broker.requestMetrics.reset();
    // Every response is held HOLD_MS after its append: the slots stay taken, as during a long fsync.
    const release = broker.control.delayResponses(ApiKey.Produce, HOLD_MS);
    const ids: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const records = encodeRecordBatch({ baseTimestamp: BigInt(Date.now()), records: [{ key: null, value: `r${i}`, timestampDelta: 0 }] });
      ids.push(c.send(ApiKey.Produce, 8, { acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] }));
    }
    const conn = () => [...broker.core.connections].find((x) => x.session.clientPort === c.socket.localPort);
    let maxInFlight = 0;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && maxInFlight < REQUESTS) {
      maxInFlight = Math.max(maxInFlight, conn()?.stats().inFlight ?? 0);
      await sleep(5);
    }
    release();
    // With 32 slots per connection (the old default) this stayed at 32 and the rest queued.
    expect(maxInFlight).toBe(REQUESTS);
    let previous = -1n;
    for (const id of ids) {
      const frame = await c.nextFrame(20_000);
      if (!frame) throw new Error("connection closed");
      const r = decodeResponse(ApiKey.Produce, 8, frame);
      expect(r.correlationId).toBe(id);
      const p = r.body.responses[0]!.partitionResponses[0]!;
      expect(p.errorCode).toBe(ErrorCode.NONE);
      expect(p.baseOffset).toBeGreaterThan(previous);
      previous = p.baseOffset;
    }
    expect(previous).toBe(BigInt(REQUESTS - 1));
    const produce = broker.requestMetrics.snapshot().Produce;
    expect(produce?.count).toBe(REQUESTS);
    // The hold happens after the handler finished: it shows as time behind the response, and in the total.
    expect(produce!.phases.responseQueue.p50).toBeGreaterThanOrEqual(HOLD_MS * 0.95);
    expect(produce!.phases.total.p50).toBeGreaterThanOrEqual(produce!.phases.responseQueue.p50 * 0.9);
    c.close();
  });
});
