/*
 * The broker's Prometheus metrics (prom-client), served at GET /metrics on
 * 127.0.0.1:<metrics.port> (server.ts). Names are Apache Kafka's JMX metrics as
 * the Prometheus JMX exporter's usual Kafka rules name them, so a dashboard
 * built for Kafka reads this broker too:
 *
 *   kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=T   → kafka_server_brokertopicmetrics_bytesin_total{topic="T"}
 *   kafka.network:type=RequestMetrics,name=RequestsPerSec,request=R   → kafka_network_requestmetrics_requests_total{request="R"}
 *   kafka.network:type=RequestMetrics,name=TotalTimeMs,request=R      → kafka_network_requestmetrics_totaltimems{request="R"}
 *   kafka.log:type=Log,name=Size,topic=T,partition=P                  → kafka_log_log_size{topic="T",partition="P"}
 *
 * Meters (…PerSec) are counters (`_total`; Prometheus computes the rate).
 * Kafka's timers keep their unit, milliseconds, and are histograms here
 * (`_bucket`/`_sum`/`_count`) instead of the exporter's precomputed quantiles,
 * so they can be aggregated; produce and fetch latency are request="Produce"
 * and request="Fetch". The README's "Metrics" table lists every name.
 *
 * The hot paths only add to plain maps (no label hashing per produce); the
 * counters are brought up to date when Prometheus scrapes.
 */
import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry, type Histogram as H } from "prom-client";
import type { RequestTimes } from "./net/request-metrics.ts";

const MS_BUCKETS = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];
const RECORD_COUNT = 57; // RecordBatch v2: records count (INT32) at this offset of each batch
const BATCH_LENGTH = 8; // batchLength (INT32) after baseOffset (INT64)

/** What the log sizes gauge reads at scrape time. */
export interface LogSizes {
  /** Every partition's local size in bytes. */
  sizes(): Iterable<{ topic: string; partition: number; bytes: number }>;
}

export class BrokerMetrics {
  readonly registry = new Registry();
  private readonly bytesInByTopic = new Map<string, number>();
  private readonly bytesOutByTopic = new Map<string, number>();
  private readonly messagesInByTopic = new Map<string, number>();
  private readonly phases: Array<{ histogram: H<"request">; children: Map<string, { observe(v: number): void }>; of: (t: RequestTimes, written: number) => number }>;
  private readonly requests: Counter<"request">;
  private readonly requestChildren = new Map<string, { inc(): void }>();
  private logSizes: LogSizes | null = null;

  constructor() {
    const registers = [this.registry];
    const totals = (name: string, help: string, source: Map<string, number>) =>
      new Counter({
        name,
        help,
        labelNames: ["topic"],
        registers,
        collect() {
          this.reset();
          for (const [topic, n] of source) this.inc({ topic }, n);
        },
      });
    totals("kafka_server_brokertopicmetrics_bytesin_total", "Bytes of record batches appended by Produce, by topic (Kafka's BytesInPerSec).", this.bytesInByTopic);
    totals("kafka_server_brokertopicmetrics_bytesout_total", "Bytes of record batches sent in Fetch responses, by topic (Kafka's BytesOutPerSec).", this.bytesOutByTopic);
    totals("kafka_server_brokertopicmetrics_messagesin_total", "Records appended by Produce, by topic (Kafka's MessagesInPerSec).", this.messagesInByTopic);
    this.requests = new Counter({ name: "kafka_network_requestmetrics_requests_total", help: "Requests answered, by API (Kafka's RequestsPerSec).", labelNames: ["request"], registers });
    const timer = (name: string, help: string, of: (t: RequestTimes, written: number) => number) => ({
      histogram: new Histogram({ name, help, labelNames: ["request"], buckets: MS_BUCKETS, registers }),
      children: new Map<string, { observe(v: number): void }>(),
      of,
    });
    this.phases = [
      timer("kafka_network_requestmetrics_totaltimems", "Milliseconds from a request's last byte received to its response written, by API (Kafka's TotalTimeMs).", (t, w) => w - t.received),
      timer("kafka_network_requestmetrics_requestqueuetimems", "Milliseconds a request waited for a free slot of its connection, by API (Kafka's RequestQueueTimeMs).", (t) => t.started - t.received),
      timer("kafka_network_requestmetrics_localtimems", "Milliseconds in the request's handler, fsync of acks=all included, by API (Kafka's LocalTimeMs + RemoteTimeMs).", (t) => t.finished - t.started),
    ];
    const logSizes = () => this.logSizes;
    new Gauge({
      name: "kafka_log_log_size",
      help: "Local size in bytes of each partition's log (Kafka's kafka.log:type=Log,name=Size).",
      labelNames: ["topic", "partition"],
      registers,
      collect() {
        this.reset();
        const source = logSizes();
        if (!source) return;
        for (const s of source.sizes()) this.set({ topic: s.topic, partition: String(s.partition) }, s.bytes);
      },
    });
  }

  /** Where the log sizes come from (the broker's storage). */
  bindLogs(sizes: LogSizes): void {
    this.logSizes = sizes;
  }

  /** One request written to its socket (net/request-metrics.ts calls this for every request that reached a handler). */
  request(api: string, t: RequestTimes, written: number): void {
    let counter = this.requestChildren.get(api);
    if (!counter) this.requestChildren.set(api, (counter = this.requests.labels({ request: api })));
    counter.inc();
    for (const p of this.phases) {
      let child = p.children.get(api);
      if (!child) p.children.set(api, (child = p.histogram.labels({ request: api })));
      child.observe(Math.max(0, p.of(t, written)));
    }
  }

  /** Record batches appended to `topic` by a Produce. */
  bytesIn(topic: string, records: Buffer): void {
    this.bytesInByTopic.set(topic, (this.bytesInByTopic.get(topic) ?? 0) + records.length);
    this.messagesInByTopic.set(topic, (this.messagesInByTopic.get(topic) ?? 0) + recordCount(records));
  }

  /** Record bytes of `topic` put in a Fetch response. */
  bytesOut(topic: string, bytes: number): void {
    if (bytes > 0) this.bytesOutByTopic.set(topic, (this.bytesOutByTopic.get(topic) ?? 0) + bytes);
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  /** GET /metrics on 127.0.0.1:`port` (0: ephemeral); anything else is a 404. */
  async serve(port: number, onError: (message: string) => void): Promise<Server> {
    const server = createServer((req, res) => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found; metrics are at GET /metrics\n");
        return;
      }
      this.text().then(
        (text) => res.writeHead(200, { "content-type": this.registry.contentType }).end(text),
        (error: unknown) => {
          onError(`collecting metrics failed: ${error instanceof Error ? error.message : String(error)}`);
          res.writeHead(500, { "content-type": "text/plain" }).end("collecting metrics failed\n");
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (err) => onError(`metrics endpoint error: ${err.message}`));
    return server;
  }
}

/** Records in the RecordBatch v2 batches of a produced records section (0 for anything it cannot read). */
function recordCount(records: Buffer): number {
  let n = 0;
  let at = 0;
  while (at + RECORD_COUNT + 4 <= records.length) {
    const length = records.readInt32BE(at + BATCH_LENGTH);
    if (length <= 0) break;
    n += Math.max(0, records.readInt32BE(at + RECORD_COUNT));
    at += 12 + length;
  }
  return n;
}
