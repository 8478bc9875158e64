// The frames-in-flight cap, over real TCP: a connection dispatches requests
// only while the frames of the requests whose handlers run total less than
// 64 MiB, queues what arrives after that up to 16 MiB, then stops reading the
// socket (the kernel pushes back on the client over TCP), and resumes once
// handlers finish — answering everything in order.
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ApiKey, ErrorCode, decodeResponse } from "@kappa/kafka-protocol";
import { embeddedOnly, RawClient, sleep, startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

const MIB = 1024 * 1024;
const REQUESTS = 28;

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

describe("frames in flight per connection", () => {
  embeddedOnly("its fault control and in-flight limits").it("stops dispatching at 64 MiB of frames in flight, stops reading once 16 MiB more are queued, and resumes when handlers finish", async () => {
    const c = await RawClient.connect(broker.port);
    // 4 MiB of zeros is no record batch: each Produce is refused (CORRUPT_MESSAGE) without writing; only its frame size matters here.
    const topic = uniqueName("in-flight");
    // Produce never creates a topic (as on Kafka): create it first.
    expect((await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 })).body.topics[0]?.errorCode).toBe(ErrorCode.NONE);
    const release = broker.control.holdHandlers(ApiKey.Produce);
    const records = Buffer.alloc(4 * MIB, 7);
    const ids: number[] = [];
    for (let i = 0; i < REQUESTS; i++) ids.push(c.send(ApiKey.Produce, 8, { acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] }));
    const conn = () => [...broker.core.connections].find((x) => x.session.clientPort === c.socket.localPort);
    const paused = await waitFor(() => conn()?.stats().readPaused === true, 30_000);
    const held = conn()?.stats();
    expect(paused).toBe(true);
    // Each frame is 4 MiB and a few dozen bytes: 15 of them are below 64 MiB, so the 16th is dispatched and the 17th waits.
    expect(held?.inFlight).toBe(16);
    expect(held?.inFlightRequestBytes).toBeGreaterThanOrEqual(64 * MIB);
    expect(held?.inFlightRequestBytes).toBeLessThan(68 * MIB);
    // Reading stopped once the queue reached 16 MiB (4 frames), with the rest still in the kernel or the client.
    expect(held?.queuedRequests).toBe(4);
    expect(held?.queuedRequestBytes).toBeGreaterThanOrEqual(16 * MIB);
    // It stays so while the handlers run: nothing more is dispatched or read.
    await sleep(300);
    expect(conn()?.stats()).toMatchObject({ inFlight: 16, queuedRequests: 4, readPaused: true });
    release();
    for (const id of ids) {
      const frame = await c.nextFrame(30_000);
      if (!frame) throw new Error("connection closed");
      const r = decodeResponse(ApiKey.Produce, 8, frame);
      expect(r.correlationId).toBe(id);
      expect(r.body.responses[0]?.partitionResponses[0]?.errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    }
    expect(conn()?.stats()).toMatchObject({ inFlight: 0, inFlightRequestBytes: 0, queuedRequests: 0, readPaused: false });
    c.close();
  });
});
