import { describe, expect, it } from "vitest";
import { crc32c } from "./crc32c.ts";
import { decodeFetchedRecords } from "./fetched-records.ts";
import { encodeRecordBatch } from "./record-batch.ts";

const batch = (baseOffset: bigint, values: string[], extra: Partial<Parameters<typeof encodeRecordBatch>[0]> = {}) =>
  encodeRecordBatch({ baseOffset, baseTimestamp: 1_000n, records: values.map((v, i) => ({ key: `k${i}`, value: v, timestampDelta: i * 10 })), ...extra });

describe("decodeFetchedRecords", () => {
  it("gives absolute offsets and timestamps, trims below fromOffset and reports the next offset", () => {
    const buf = Buffer.concat([batch(0n, ["a", "b", "c"]), batch(3n, ["d"], { compression: "gzip", baseTimestamp: 2_000n })]);
    const out = decodeFetchedRecords(buf, 1n);
    expect(out.records.map((r) => [r.offset, r.value?.toString(), r.timestamp])).toEqual([
      [1n, "b", 1010n],
      [2n, "c", 1020n],
      [3n, "d", 2000n],
    ]);
    expect(out.nextOffset).toBe(4n);
    expect(out.undecodable).toBeNull();
  });

  it("ignores a trailing partial batch (a fetch cut at its size limit)", () => {
    const full = batch(0n, ["a"]);
    const next = batch(1n, ["b"]);
    const out = decodeFetchedRecords(Buffer.concat([full, next.subarray(0, next.length - 3)]), 0n);
    expect(out.records.map((r) => r.value?.toString())).toEqual(["a"]);
    expect(out.nextOffset).toBe(1n);
  });

  it("skips control batches and the records of aborted transactions", () => {
    const pid = 7n;
    const aborted = batch(0n, ["x", "y"], { isTransactional: true, producerId: pid, producerEpoch: 0 });
    const marker = encodeRecordBatch({ baseOffset: 2n, baseTimestamp: 1_000n, isTransactional: true, isControl: true, producerId: pid, records: [{ key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }] });
    const committed = batch(3n, ["z"], { isTransactional: true, producerId: pid, producerEpoch: 0 });
    const out = decodeFetchedRecords(Buffer.concat([aborted, marker, committed]), 0n, [{ producerId: pid, firstOffset: 0n }]);
    expect(out.records.map((r) => r.value?.toString())).toEqual(["z"]);
    expect(out.nextOffset).toBe(4n);
    // Without the aborted list (READ_UNCOMMITTED) the aborted records are there, the marker still is not.
    expect(decodeFetchedRecords(Buffer.concat([aborted, marker, committed]), 0n).records.map((r) => r.value?.toString())).toEqual(["x", "y", "z"]);
  });

  it("stops at a batch it cannot decompress and says why", () => {
    const snappy = batch(1n, ["s"]);
    snappy.writeInt16BE(snappy.readInt16BE(21) | 2, 21);
    snappy.writeUInt32BE(crc32c(snappy, 21, snappy.length), 17);
    const out = decodeFetchedRecords(Buffer.concat([batch(0n, ["a"]), snappy]), 0n);
    expect(out.records).toHaveLength(1);
    expect(out.undecodable).toEqual({ offset: 1n, reason: "compressed with snappy, which this reader cannot decompress" });
    expect(out.nextOffset).toBe(1n);
  });
});
