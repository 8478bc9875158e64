/*
 * What the message browser needs from Kafka, in Kafka's terms, implemented by
 * the portal's server over the message browser's own principal (READ and
 * DESCRIBE on product topics; reads by partition, never a consumer group).
 * The catalog decides who may read what and how it is shown; it never holds a
 * Kafka connection itself.
 */

export interface SourceHeader {
  key: string;
  value: Buffer | null;
}

export interface SourceRecord {
  partition: number;
  offset: bigint;
  timestamp: bigint;
  timestampType: "CreateTime" | "LogAppendTime";
  key: Buffer | null;
  value: Buffer | null;
  headers: SourceHeader[];
}

export interface PartitionBounds {
  partition: number;
  /** Log start offset (including data only in remote storage). */
  earliest: bigint;
  /** High watermark: one past the last readable record. */
  end: bigint;
}

export interface ReadResult {
  records: SourceRecord[];
  /** Offset to read next. */
  next: bigint;
  /** The partition's high watermark at the read. */
  end: bigint;
  /** A batch the reader cannot decode (e.g. an unsupported compression codec); reading stops before it. */
  undecodable: { offset: bigint; reason: string } | null;
}

export interface RecordSource {
  /** Partitions of the topic (all, or those asked) with their earliest and end offsets. */
  bounds(topic: string, partitions?: readonly number[]): Promise<PartitionBounds[]>;
  /** First offset whose timestamp is ≥ `timestampMs`, per partition; null: no such record (the end). */
  offsetsForTimestamp(topic: string, partitions: readonly number[], timestampMs: bigint): Promise<Map<number, bigint | null>>;
  /** Records of one partition from `from` onwards, at most about `maxBytes` of them. */
  read(topic: string, partition: number, from: bigint, maxBytes: number): Promise<ReadResult>;
}
