// GET /metrics on metrics.port: scraped before and after a produce and a
// fetch with kafkajs, the counters must move by what was sent and read.
import { afterAll, beforeAll, expect, it } from "vitest";
import { embeddedOnly, kafkaClient, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker({ "metrics.port": 0 });
});
afterAll(async () => {
  await broker.cleanup();
});

async function scrape(port = broker.metricsPort): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const out = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const cut = line.lastIndexOf(" ");
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

const value = (m: Map<string, number>, series: string): number => m.get(series) ?? 0;

embeddedOnly("its Prometheus endpoint, metrics.port").describe("broker metrics at GET /metrics", () => {
  it("listens only when metrics.port is set, on loopback, and answers 404 beside /metrics", async () => {
    expect(broker.metricsPort).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${broker.metricsPort}/other`)).status).toBe(404);
    const plain = await startTestBroker();
    try {
      expect(plain.metricsPort).toBeNull();
    } finally {
      await plain.cleanup();
    }
  });

  it("a produce moves bytes in, messages in, Produce's request count and latency histogram and the log size; a fetch moves bytes out", async () => {
    const topic = uniqueName("metrics");
    const kafka = kafkaClient(broker.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const before = await scrape();
    expect(before.has(`kafka_server_brokertopicmetrics_bytesin_total{topic="${topic}"}`)).toBe(false);

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `record ${i} `.padEnd(100, "x") })) });
    await producer.disconnect();

    const afterProduce = await scrape();
    const bytesIn = value(afterProduce, `kafka_server_brokertopicmetrics_bytesin_total{topic="${topic}"}`);
    // Ten 100-byte values plus the batch's framing.
    expect(bytesIn).toBeGreaterThan(1000);
    expect(value(afterProduce, `kafka_server_brokertopicmetrics_messagesin_total{topic="${topic}"}`)).toBe(10);
    expect(value(afterProduce, 'kafka_network_requestmetrics_requests_total{request="Produce"}')).toBeGreaterThan(value(before, 'kafka_network_requestmetrics_requests_total{request="Produce"}'));
    expect(value(afterProduce, 'kafka_network_requestmetrics_totaltimems_count{request="Produce"}')).toBeGreaterThan(value(before, 'kafka_network_requestmetrics_totaltimems_count{request="Produce"}'));
    expect(value(afterProduce, 'kafka_network_requestmetrics_totaltimems_bucket{le="+Inf",request="Produce"}')).toBe(value(afterProduce, 'kafka_network_requestmetrics_totaltimems_count{request="Produce"}'));
    expect(value(afterProduce, `kafka_log_log_size{topic="${topic}",partition="0"}`)).toBeGreaterThanOrEqual(bytesIn);

    const consumer = kafka.consumer({ groupId: uniqueName("metrics-group") });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let seen = 0;
    await consumer.run({
      eachMessage: async () => {
        seen++;
      },
    });
    try {
      await waitFor(() => seen >= 10, 30_000, "the ten records to be consumed");
    } finally {
      await consumer.disconnect();
    }
    const afterFetch = await scrape();
    expect(value(afterFetch, `kafka_server_brokertopicmetrics_bytesout_total{topic="${topic}"}`)).toBeGreaterThanOrEqual(bytesIn);
    expect(value(afterFetch, 'kafka_network_requestmetrics_totaltimems_count{request="Fetch"}')).toBeGreaterThan(value(before, 'kafka_network_requestmetrics_totaltimems_count{request="Fetch"}'));
  });
});
