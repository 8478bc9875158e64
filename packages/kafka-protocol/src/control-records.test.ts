import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  ControlRecordType,
  decodeControlRecordType,
  decodeEndTxnMarkerValue,
  encodeEndTxnMarkerBatch,
  encodeEndTxnMarkerRecord,
} from "./control-records.ts";
import { ProtocolError } from "./errors.ts";
import { encodeResponse } from "./frames.ts";
import { ApiKey } from "./generated/api-keys.ts";
import { decodeRecordBatch, encodeRecordBatch, readBatchHeader } from "./record-batch.ts";

const require = createRequire(import.meta.url);

describe("end-transaction marker records", () => {
  it("have Kafka's literal key and value bytes", () => {
    // EndTransactionMarker: key = version 0, type (0 abort / 1 commit); value = version 0, coordinator epoch.
    const commit = encodeEndTxnMarkerRecord(true, 7);
    expect(commit.key.toString("hex")).toBe("00000001");
    expect(commit.value.toString("hex")).toBe("000000000007");
    const abort = encodeEndTxnMarkerRecord(false, 0x01020304);
    expect(abort.key.toString("hex")).toBe("00000000");
    expect(abort.value.toString("hex")).toBe("000001020304");
  });

  it("decode, accepting newer versions with trailing fields", () => {
    expect(decodeControlRecordType(Buffer.from("00000001", "hex"))).toBe(ControlRecordType.COMMIT);
    expect(decodeControlRecordType(Buffer.from("000100009999", "hex"))).toBe(ControlRecordType.ABORT);
    expect(decodeEndTxnMarkerValue(Buffer.from("00010000002aff", "hex"))).toEqual({ coordinatorEpoch: 42 });
    expect(() => decodeControlRecordType(Buffer.from("0000", "hex"))).toThrow(ProtocolError);
    expect(() => decodeControlRecordType(null)).toThrow(ProtocolError);
    expect(() => decodeEndTxnMarkerValue(Buffer.from("ffff00000000", "hex"))).toThrow(ProtocolError);
  });

  it("make a control batch with the producer's id and epoch and no sequence", () => {
    const bytes = encodeEndTxnMarkerBatch({ producerId: 4000n, producerEpoch: 3, commit: false, coordinatorEpoch: 2, timestamp: 1700000000000n, baseOffset: 17n });
    const batch = decodeRecordBatch(bytes); // verifies the CRC
    expect(batch.header).toMatchObject({
      baseOffset: 17n,
      isTransactional: true,
      isControl: true,
      producerId: 4000n,
      producerEpoch: 3,
      baseSequence: -1,
      recordCount: 1,
      lastOffsetDelta: 0,
      baseTimestamp: 1700000000000n,
      maxTimestamp: 1700000000000n,
    });
    expect(batch.records).toHaveLength(1);
    expect(decodeControlRecordType(batch.records[0]!.key)).toBe(ControlRecordType.ABORT);
    expect(decodeEndTxnMarkerValue(batch.records[0]!.value)).toEqual({ coordinatorEpoch: 2 });
  });
});

describe("kafkajs 2.2.4 reads transactions the way a broker writes them", () => {
  const kjFetch = require("kafkajs/src/protocol/requests/fetch/v11/response.js") as { decode: (data: Buffer) => Promise<Record<string, unknown>> };
  const KjBatch = require("kafkajs/src/consumer/batch.js") as new (topic: string, fetchedOffset: string, partitionData: unknown) => {
    messages: Array<{ offset: string; value: Buffer | null }>;
    isEmptyControlRecord(): boolean;
  };

  /** Offsets 0-1 aborted txn of pid 7, 2 abort marker, 3-4 committed txn of pid 8, 5 commit marker, 6 plain record. */
  function partitionLog(): Buffer {
    const txn = (baseOffset: bigint, producerId: bigint, values: string[]) =>
      encodeRecordBatch({ baseOffset, baseTimestamp: 1700000000000n, producerId, producerEpoch: 0, baseSequence: 0, isTransactional: true, records: values.map((value) => ({ value })) });
    return Buffer.concat([
      txn(0n, 7n, ["a0", "a1"]),
      encodeEndTxnMarkerBatch({ producerId: 7n, producerEpoch: 0, commit: false, coordinatorEpoch: 0, timestamp: 1700000000001n, baseOffset: 2n }),
      txn(3n, 8n, ["c3", "c4"]),
      encodeEndTxnMarkerBatch({ producerId: 8n, producerEpoch: 0, commit: true, coordinatorEpoch: 0, timestamp: 1700000000002n, baseOffset: 5n }),
      encodeRecordBatch({ baseOffset: 6n, baseTimestamp: 1700000000003n, records: [{ value: "p6" }] }),
    ]);
  }

  it("drops the aborted records and both markers from a READ_COMMITTED fetch", async () => {
    const frame = encodeResponse(ApiKey.Fetch, 11, 1, {
      responses: [
        {
          topic: "t",
          partitions: [
            { partitionIndex: 0, highWatermark: 7n, lastStableOffset: 7n, logStartOffset: 0n, abortedTransactions: [{ producerId: 7n, firstOffset: 0n }], preferredReadReplica: -1, records: partitionLog() },
          ],
        },
      ],
    });
    const out = await kjFetch.decode(frame.subarray(8));
    const p = (out.responses as Array<{ partitions: Array<{ abortedTransactions: unknown[] }> }>)[0]!.partitions[0]!;
    expect(p.abortedTransactions).toEqual([{ producerId: "7", firstOffset: "0" }]);
    const batch = new KjBatch("t", "0", p);
    expect(batch.messages.map((m) => [m.offset, m.value?.toString()])).toEqual([
      ["3", "c3"],
      ["4", "c4"],
      ["6", "p6"],
    ]);
  });

  it("sees a fetch holding only a marker as an empty control batch to step over", async () => {
    const marker = encodeEndTxnMarkerBatch({ producerId: 8n, producerEpoch: 0, commit: true, coordinatorEpoch: 0, timestamp: 1n, baseOffset: 5n });
    expect(readBatchHeader(marker).isControl).toBe(true);
    const frame = encodeResponse(ApiKey.Fetch, 11, 1, {
      responses: [{ topic: "t", partitions: [{ partitionIndex: 0, highWatermark: 6n, lastStableOffset: 6n, abortedTransactions: [], preferredReadReplica: -1, records: marker }] }],
    });
    const out = await kjFetch.decode(frame.subarray(8));
    const p = (out.responses as Array<{ partitions: unknown[] }>)[0]!.partitions[0]!;
    const batch = new KjBatch("t", "5", p);
    expect(batch.messages).toEqual([]);
    expect(batch.isEmptyControlRecord()).toBe(true);
  });
});
