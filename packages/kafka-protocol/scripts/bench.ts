/**
 * Micro-benchmarks of the hot paths the broker uses. `npm run bench -w packages/kafka-protocol`.
 */
import {
  ApiKey,
  crc32c,
  decodeRecordBatch,
  decodeRequest,
  decodeResponse,
  encodeRecordBatch,
  encodeRequest,
  encodeResponse,
} from "../src/index.ts";

function bench(name: string, fn: () => unknown, minMs = 500): void {
  for (let i = 0; i < 50; i++) fn();
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
    elapsed = performance.now() - start;
  }
  const us = (elapsed * 1000) / n;
  console.log(`${name.padEnd(60)} ${us.toFixed(2).padStart(10)} µs/op ${Math.round(n / (elapsed / 1000)).toString().padStart(10)} ops/s`);
}

const mbBatch = encodeRecordBatch({ baseTimestamp: 1n, records: [{ value: Buffer.alloc(1 << 20, 1) }] });
const produce1mb = encodeRequest(
  { apiKey: ApiKey.Produce, apiVersion: 7, correlationId: 1, clientId: "bench" },
  { acks: -1, timeoutMs: 30000, topicData: [{ name: "t", partitionData: [{ index: 0, records: mbBatch }] }] },
).subarray(4);
bench("decode Produce v7 request, one 1 MB batch", () => decodeRequest(produce1mb));

const smallBatch = encodeRecordBatch({
  baseTimestamp: 1n,
  records: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: Buffer.alloc(100, i) })),
});
const produceMany = encodeRequest(
  { apiKey: ApiKey.Produce, apiVersion: 9, correlationId: 1, clientId: "bench" },
  {
    acks: -1,
    timeoutMs: 30000,
    topicData: Array.from({ length: 5 }, (_, t) => ({
      name: `topic-${t}`,
      partitionData: Array.from({ length: 10 }, (_, p) => ({ index: p, records: smallBatch })),
    })),
  },
).subarray(4);
bench("decode Produce v9 request, 5 topics × 10 partitions", () => decodeRequest(produceMany));

const fetchBody = {
  responses: Array.from({ length: 2 }, (_, t) => ({
    topic: `topic-${t}`,
    partitions: Array.from({ length: 10 }, (_, p) => ({
      partitionIndex: p,
      highWatermark: 1000n,
      lastStableOffset: 1000n,
      logStartOffset: 0n,
      abortedTransactions: null,
      preferredReadReplica: -1,
      records: smallBatch,
    })),
  })),
};
bench("encode Fetch v11 response, 2 topics × 10 partitions", () => encodeResponse(ApiKey.Fetch, 11, 1, fetchBody));

const fetchReq = encodeRequest(
  { apiKey: ApiKey.Fetch, apiVersion: 11, correlationId: 1, clientId: "bench" },
  {
    replicaId: -1,
    maxWaitMs: 5000,
    minBytes: 1,
    maxBytes: 10485760,
    isolationLevel: 1,
    sessionEpoch: -1,
    topics: [{ topic: "t", partitions: Array.from({ length: 10 }, (_, p) => ({ partition: p, fetchOffset: 5n, partitionMaxBytes: 1048576 })) }],
  },
).subarray(4);
bench("decode Fetch v11 request, 10 partitions", () => decodeRequest(fetchReq));

const metaBody = {
  brokers: [{ nodeId: 0, host: "localhost", port: 9092, rack: null }],
  clusterId: "kappa",
  controllerId: 0,
  topics: Array.from({ length: 100 }, (_, t) => ({
    errorCode: 0,
    name: `topic-${t}`,
    isInternal: false,
    partitions: Array.from({ length: 3 }, (_, p) => ({ errorCode: 0, partitionIndex: p, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] })),
  })),
};
bench("encode Metadata v8 response, 100 topics × 3 partitions", () => encodeResponse(ApiKey.Metadata, 8, 1, metaBody));
const metaFrame = encodeResponse(ApiKey.Metadata, 12, 1, metaBody).subarray(4);
bench("decode Metadata v12 response, 100 topics × 3 partitions", () => decodeResponse(ApiKey.Metadata, 12, metaFrame));

const apiv = encodeRequest({ apiKey: ApiKey.ApiVersions, apiVersion: 3, correlationId: 1, clientId: "rdkafka" }, { clientSoftwareName: "librdkafka", clientSoftwareVersion: "2.0.2" }).subarray(4);
bench("decode ApiVersions v3 request", () => decodeRequest(apiv));

const recs = Array.from({ length: 1000 }, (_, i) => ({ key: `key-${i}`, value: Buffer.alloc(200, i), timestampDelta: i }));
bench("encodeRecordBatch, 1000 records × 200 B, none", () => encodeRecordBatch({ baseTimestamp: 1n, records: recs }), 300);
const batch1000 = encodeRecordBatch({ baseTimestamp: 1n, records: recs });
bench("decodeRecordBatch, 1000 records × 200 B, none (CRC checked)", () => decodeRecordBatch(batch1000), 300);
const gz1000 = encodeRecordBatch({ baseTimestamp: 1n, records: recs, compression: "gzip" });
bench("decodeRecordBatch, 1000 records × 200 B, gzip", () => decodeRecordBatch(gz1000), 300);
bench("crc32c, 1 MB", () => crc32c(mbBatch), 300);

const fetchBig = {
  responses: [
    {
      topic: "t",
      partitions: [{ partitionIndex: 0, highWatermark: 1n, lastStableOffset: 1n, logStartOffset: 0n, abortedTransactions: null, preferredReadReplica: -1, records: mbBatch }],
    },
  ],
};
bench("encode Fetch v11 response, one 1 MB batch", () => encodeResponse(ApiKey.Fetch, 11, 1, fetchBig), 300);
