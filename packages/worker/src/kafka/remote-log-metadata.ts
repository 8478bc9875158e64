/*
 * Remote (tiered) bytes on Apache Kafka, read from the cluster's own record of
 * what it tiered: the topic-based remote log metadata manager (KIP-405's
 * TopicBasedRemoteLogMetadataManager, the one every KIP-405 cluster ships)
 * writes one record per remote segment state change to `__remote_log_metadata`.
 * Kafka exposes the remote size otherwise only as the JMX metric
 * RemoteLogSizeBytes, which no protocol client can read.
 *
 * Each record value is Kafka's metadata-record framing (AbstractApiMessageSerde):
 * unsigned varints frame version (1), api key, version, then the message in
 * Kafka's flexible encoding (every struct ends with tagged fields):
 *   0 RemoteLogSegmentMetadataRecord — a segment whose copy started: id, size
 *   1 RemoteLogSegmentMetadataUpdateRecord — its state moves on
 *   2 RemotePartitionDeleteMetadataRecord — the partition is being deleted
 *   3 RemoteLogSegmentMetadataSnapshotRecord — only in local snapshots, never in the topic
 * A segment counts once its copy FINISHED and until its deletion starts.
 *
 * The reader keeps what it has read and fetches only what is new on each
 * call, so an observation cycle reads the records of its own interval.
 */
import { decodeFetchedRecords, Reader } from "@kappa/kafka-protocol";
import { partitionKey, type PerPartition, type TopicPartitions } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";
import { fetchRecords } from "./records.ts";

export const REMOTE_LOG_METADATA_TOPIC = "__remote_log_metadata";

/** RemoteLogSegmentState ids (org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState). */
export const SegmentState = { COPY_STARTED: 0, COPY_FINISHED: 1, DELETE_STARTED: 2, DELETE_FINISHED: 3 } as const;

interface TopicIdPartition {
  topic: string;
  topicId: string;
  partition: number;
}

export type RemoteLogMetadataEvent =
  | { kind: "segment"; segmentId: string; at: TopicIdPartition; sizeBytes: number; state: number }
  | { kind: "segment-update"; segmentId: string; at: TopicIdPartition; state: number }
  | { kind: "partition-delete"; at: TopicIdPartition };

function topicIdPartition(r: Reader): TopicIdPartition {
  const topic = r.compactString();
  const topicId = r.uuid();
  const partition = r.int32();
  r.taggedFields();
  return { topic, topicId, partition };
}

function segmentId(r: Reader): { at: TopicIdPartition; id: string } {
  const at = topicIdPartition(r);
  const id = r.uuid();
  r.taggedFields();
  return { at, id };
}

/** One record value of `__remote_log_metadata`; null for kinds the reader does not use. Throws on bytes that do not parse. */
export function decodeRemoteLogMetadata(value: Buffer): RemoteLogMetadataEvent | null {
  const r = new Reader(value);
  const frameVersion = r.uvarint();
  if (frameVersion !== 1) throw new Error(`remote log metadata: unknown frame version ${frameVersion}`);
  const apiKey = r.uvarint();
  r.uvarint(); // the message version: versions 0 and 1 differ only in tagged fields
  switch (apiKey) {
    case 0: {
      const { at, id } = segmentId(r);
      r.int64(); // start offset
      r.int64(); // end offset
      r.int32(); // broker id
      r.int64(); // max timestamp
      r.int64(); // event timestamp
      r.compactArray((e) => {
        e.int32();
        e.int64();
        e.taggedFields();
      });
      const sizeBytes = r.int32();
      r.compactNullableBytes(); // custom metadata
      const state = r.int8();
      r.taggedFields();
      return { kind: "segment", segmentId: id, at, sizeBytes, state };
    }
    case 1: {
      const { at, id } = segmentId(r);
      r.int32(); // broker id
      r.int64(); // event timestamp
      r.compactNullableBytes(); // custom metadata
      const state = r.int8();
      r.taggedFields();
      return { kind: "segment-update", segmentId: id, at, state };
    }
    case 2:
      return { kind: "partition-delete", at: topicIdPartition(r) };
    default:
      return null;
  }
}

interface Segment {
  topicId: string;
  topic: string;
  partition: number;
  sizeBytes: number;
  state: number;
}

/** What the remote log metadata topic says, applied event by event (kept between calls). */
export class RemoteLogSizes {
  private readonly segments = new Map<string, Segment>();
  private readonly next = new Map<number, bigint>();
  /** Records that did not parse (a newer Kafka's format): counted, never guessed at. */
  undecodable = 0;

  apply(event: RemoteLogMetadataEvent): void {
    switch (event.kind) {
      case "segment":
        this.segments.set(event.segmentId, { topicId: event.at.topicId, topic: event.at.topic, partition: event.at.partition, sizeBytes: event.sizeBytes, state: event.state });
        break;
      case "segment-update": {
        const s = this.segments.get(event.segmentId);
        if (event.state === SegmentState.DELETE_FINISHED) this.segments.delete(event.segmentId);
        else if (s) s.state = event.state;
        break;
      }
      case "partition-delete":
        for (const [id, s] of this.segments) if (s.topicId === event.at.topicId && s.partition === event.at.partition) this.segments.delete(id);
        break;
    }
  }

  /**
   * Bytes of finished, not-deleted remote segments per partition of the
   * wanted topics, counting only segments of the topic's current id (a
   * deleted and re-created topic's old segments are not its own).
   */
  sizes(wanted: TopicPartitions[], topicIds: Map<string, string | null>): PerPartition<bigint> {
    const out: PerPartition<bigint> = new Map(wanted.map((t) => [t.topic, new Array<bigint>(t.partitions).fill(0n)]));
    for (const s of this.segments.values()) {
      if (s.state !== SegmentState.COPY_FINISHED) continue;
      const values = out.get(s.topic);
      if (!values || s.partition >= values.length) continue;
      const current = topicIds.get(s.topic);
      if (current && current !== s.topicId) continue;
      values[s.partition] = (values[s.partition] ?? 0n) + BigInt(s.sizeBytes);
    }
    return out;
  }

  /**
   * Reads what is new in the metadata topic. False when the cluster has no
   * such topic (no tiered storage, or another metadata manager): unknown.
   */
  async refresh(conns: ClusterConnections): Promise<boolean> {
    const meta = await conns.metadata([REMOTE_LOG_METADATA_TOPIC]);
    const topic = meta.topics.get(REMOTE_LOG_METADATA_TOPIC);
    if (!topic) return false;
    let pending = topic.partitions.map((p) => p.partitionId);
    // Bounded rounds: a fetch returns up to 1 MiB per partition; a large backlog takes several.
    for (let round = 0; round < 1_000 && pending.length > 0; round++) {
      const fetched = await fetchRecords(conns, pending.map((partition) => ({ topic: REMOTE_LOG_METADATA_TOPIC, partition, offset: this.next.get(partition) ?? 0n })), { isolationLevel: 0 });
      const still: number[] = [];
      for (const partition of pending) {
        const part = fetched.get(partitionKey(REMOTE_LOG_METADATA_TOPIC, partition));
        if (!part || part.errorCode !== 0) throw new Error(`reading ${REMOTE_LOG_METADATA_TOPIC}-${partition}: error code ${part?.errorCode ?? "none"}`);
        const from = this.next.get(partition) ?? 0n;
        // The topic is kept forever by default; if it was truncated, start at its log start.
        const start = from < part.logStartOffset ? part.logStartOffset : from;
        const decoded = decodeFetchedRecords(part.records, start);
        for (const record of decoded.records) {
          if (!record.value) continue;
          try {
            const event = decodeRemoteLogMetadata(record.value);
            if (event) this.apply(event);
          } catch {
            this.undecodable++;
          }
        }
        const next = decoded.nextOffset > start ? decoded.nextOffset : start;
        this.next.set(partition, next);
        // Kafka returns at least one whole batch (KIP-74): no progress means nothing more to read now.
        if (next < part.highWatermark && next > from) still.push(partition);
      }
      pending = still;
    }
    return true;
  }
}
