// A produce client that costs next to nothing, for the benchmark: what the broker can take when
// the client does not share the 2 cores' work. kcat spends 1.2–5 CPU-seconds per GB of its own
// (reading its input, copying each record, building and checksumming batches) — on this VM
// more than the broker — so "kcat against the broker" measures the two together.
//
// The requests are encoded once, before the clock starts: Produce v8, acks=-1, one batch of
// RECORDS_PER_BATCH 1 KiB records (random bytes, uncompressed, no producer id: a plain,
// non-idempotent producer, so the same batch is accepted again and again) for each partition,
// about 1 MiB a request, as kcat's requests are. `slots` frames exist, one per request in
// flight; a slot is written again only after its response arrived (so the socket no longer
// holds its bytes) with a new correlation id patched in. The broker does everything it does for
// any producer: reads the frame, checks the batch (CRC-32C, record framing), assigns offsets,
// writes and fsyncs before it answers. Every response is decoded and every partition's error
// code checked.
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { ApiKey, ErrorCode, FrameAssembler, decodeResponse, encodeRecordBatch, encodeRequest, errorName } from "@kappa/kafka-protocol";

const PRODUCE_VERSION = 8;
const RECORDS_PER_BATCH = 256;
/** Offset of the correlation id in a request frame: size int32, api key int16, api version int16. */
const CORRELATION_AT = 8;

export interface RawProduceOptions {
  host: string;
  port: number;
  topic: string;
  partitions: number;
  /** Record bytes to send in all (rounded up to whole requests). */
  bytes: number;
  recordBytes: number;
  /** Requests in flight at once (librdkafka's default allows far more; Java's 5). */
  slots?: number;
}

export interface RawProduceResult {
  ms: number;
  /** Record bytes acknowledged. */
  bytes: number;
  requests: number;
  /** This process's CPU seconds over the run (encoding is done before it starts). */
  clientCpu: number;
}

/** Sends `opts.bytes` of records as fast as the broker acknowledges them (acks=-1). */
export async function rawProduce(opts: RawProduceOptions): Promise<RawProduceResult> {
  const slots = opts.slots ?? 8;
  const perRequest = opts.partitions * RECORDS_PER_BATCH * opts.recordBytes;
  const requests = Math.ceil(opts.bytes / perRequest);
  const frames = Array.from({ length: Math.min(slots, requests) }, () => encodeFrame(opts));
  const socket = await open(opts.host, opts.port);
  try {
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const assembler = new FrameAssembler();
      /** Correlation id → slot of the request in flight. */
      const inFlight = new Map<number, number>();
      let sent = 0;
      let acked = 0;
      const send = (slot: number) => {
        const frame = frames[slot]!;
        frame.writeInt32BE(sent, CORRELATION_AT);
        inFlight.set(sent, slot);
        sent++;
        socket.write(frame);
      };
      socket.on("data", (chunk: Buffer) => {
        try {
          for (const body of assembler.push(chunk)) {
            const { correlationId, body: response } = decodeResponse(ApiKey.Produce, PRODUCE_VERSION, body);
            const slot = inFlight.get(correlationId);
            if (slot === undefined) throw new Error(`answer to correlation id ${correlationId}, which is not in flight`);
            inFlight.delete(correlationId);
            for (const t of response.responses) {
              for (const p of t.partitionResponses) {
                if (p.errorCode !== ErrorCode.NONE) throw new Error(`produce to ${t.name}-${p.index} failed: ${errorName(p.errorCode)}`);
              }
            }
            acked++;
            if (acked === requests) return resolve();
            if (sent < requests) send(slot);
          }
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      socket.on("error", reject);
      socket.on("close", () => reject(new Error(`the broker closed the connection after ${acked} of ${requests} answers`)));
      for (let s = 0; s < frames.length; s++) send(s);
    });
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    return { ms, bytes: requests * perRequest, requests, clientCpu: (cpu.user + cpu.system) / 1e6 };
  } finally {
    socket.removeAllListeners("close");
    socket.destroy();
  }
}

function encodeFrame(opts: RawProduceOptions): Buffer {
  const now = Date.now();
  const partitionData = Array.from({ length: opts.partitions }, (_, index) => ({
    index,
    records: encodeRecordBatch({
      baseOffset: 0n,
      baseTimestamp: BigInt(now),
      records: Array.from({ length: RECORDS_PER_BATCH }, () => ({ key: null, value: randomBytes(opts.recordBytes) })),
      compression: "none",
    }),
  }));
  return encodeRequest(
    { apiKey: ApiKey.Produce, apiVersion: PRODUCE_VERSION, correlationId: 0, clientId: "kappa-bench-raw" },
    { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: opts.topic, partitionData }] },
  );
}

function open(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port, noDelay: true }, () => {
      s.off("error", reject);
      resolve(s);
    });
    s.once("error", reject);
  });
}
