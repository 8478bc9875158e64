import { describe, expect, it } from "vitest";
import { Writer } from "@kappa/kafka-protocol";
import { decodeRemoteLogMetadata, RemoteLogSizes, SegmentState } from "./remote-log-metadata.ts";

const TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ";
const OLD_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAg";
const seg = (n: number) => `AAAAAAAAAAAAAAAAAAAA${String.fromCharCode(65 + n)}A`;
const at = (partition: number, topicId = TOPIC_ID) => ({ topic: "orders", topicId, partition });

describe("remote log sizes from __remote_log_metadata events", () => {
  it("counts a segment from its finished copy until its deletion starts, per partition of the topic's current id", () => {
    const sizes = new RemoteLogSizes();
    sizes.apply({ kind: "segment", segmentId: seg(1), at: at(0), sizeBytes: 1000, state: SegmentState.COPY_STARTED });
    const wanted = [{ topic: "orders", partitions: 2 }];
    const ids = new Map([["orders", TOPIC_ID]]);
    expect(sizes.sizes(wanted, ids).get("orders")).toEqual([0n, 0n]);
    sizes.apply({ kind: "segment-update", segmentId: seg(1), at: at(0), state: SegmentState.COPY_FINISHED });
    sizes.apply({ kind: "segment", segmentId: seg(2), at: at(1), sizeBytes: 500, state: SegmentState.COPY_STARTED });
    sizes.apply({ kind: "segment-update", segmentId: seg(2), at: at(1), state: SegmentState.COPY_FINISHED });
    sizes.apply({ kind: "segment", segmentId: seg(3), at: at(1), sizeBytes: 700, state: SegmentState.COPY_STARTED });
    sizes.apply({ kind: "segment-update", segmentId: seg(3), at: at(1), state: SegmentState.COPY_FINISHED });
    // A segment of an earlier topic of the same name is not this topic's.
    sizes.apply({ kind: "segment", segmentId: seg(4), at: at(0, OLD_TOPIC_ID), sizeBytes: 9999, state: SegmentState.COPY_FINISHED });
    expect(sizes.sizes(wanted, ids).get("orders")).toEqual([1000n, 1200n]);
    sizes.apply({ kind: "segment-update", segmentId: seg(2), at: at(1), state: SegmentState.DELETE_STARTED });
    expect(sizes.sizes(wanted, ids).get("orders")).toEqual([1000n, 700n]);
    sizes.apply({ kind: "segment-update", segmentId: seg(2), at: at(1), state: SegmentState.DELETE_FINISHED });
    sizes.apply({ kind: "partition-delete", at: at(0) });
    expect(sizes.sizes(wanted, ids).get("orders")).toEqual([0n, 700n]);
  });

  it("decodes Kafka's framing (frame version 1, api key, version) and refuses an unknown frame version", () => {
    // A RemoteLogSegmentMetadataUpdateRecord v0 as AbstractApiMessageSerde writes it, field by field.
    const w = new Writer();
    w.uvarint(1).uvarint(1).uvarint(0);
    w.compactString("orders").uuid(TOPIC_ID).int32(3).uvarint(0); // TopicIdPartition + its tagged fields
    w.uuid(seg(5)).uvarint(0); // segment id + RemoteLogSegmentId's tagged fields
    w.int32(2).int64(1_700_000_000_000n).uvarint(0).int8(SegmentState.COPY_FINISHED).uvarint(0); // broker, event time, null custom metadata, state, tagged
    expect(decodeRemoteLogMetadata(w.toBuffer())).toEqual({ kind: "segment-update", segmentId: seg(5), at: at(3), state: SegmentState.COPY_FINISHED });
    expect(() => decodeRemoteLogMetadata(Buffer.from([0, 1, 0]))).toThrow(/frame version 0/);
  });
});
