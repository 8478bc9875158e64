/**
 * Object keys of remote segments, laid out as Kafka's LocalTieredStorage
 * does: `<topic>-<partition>-<topicId>/<base offset, 20 digits>-<segment uuid>.{log,index,timeindex,txnindex}`
 * (`.txnindex` only for segments with aborted transactions, as Kafka's
 * optional transaction index).
 * The topic id in the prefix keeps a recreated topic's objects apart from
 * the old one's; the segment uuid keeps a re-copied segment apart from an
 * interrupted copy of the same base offset.
 */
import { segmentName } from "../segment.ts";
import type { RemoteSegmentMetadata } from "./remote-log-metadata.ts";

/** `<base offset, 20 digits>-<segment uuid>.<ext>`: group 2 is the segment id. */
export const REMOTE_OBJECT_NAME = /^(\d{20})-([0-9a-f-]{36})\.(log|index|timeindex|txnindex)$/;

export type RemoteObjectExt = "log" | "index" | "timeindex" | "txnindex";

function partitionPrefix(topic: string, partition: number, topicId: string): string {
  return `${topic}-${partition}-${topicId}`;
}

/** Object key of one file of a remote segment, as in Kafka's LocalTieredStorage: `<topic>-<p>-<topicId>/<base>-<id>.<ext>`. */
export function remoteObjectKey(m: Pick<RemoteSegmentMetadata, "topic" | "partition" | "topicId" | "baseOffset" | "id">, ext: RemoteObjectExt): string {
  return `${partitionPrefix(m.topic, m.partition, m.topicId)}/${segmentName(m.baseOffset)}-${m.id}.${ext}`;
}
