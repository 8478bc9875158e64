/**
 * The write step of a partition's append path (Kafka's UnifiedLog.append
 * after validation): for a group of appends that queued up while the
 * previous write ran, checks idempotent-producer sequences and the
 * transaction rules (producer-state.ts), applies transaction markers (closing
 * the producer's transaction, indexing an abort in the segment's
 * transaction index), assigns offsets
 * and the leader epoch (and LogAppendTime), rolls the segment when it is
 * full, old or would overflow relative offsets, and writes the group with
 * one `writev` straight from the request buffers.
 *
 * Runs only inside the partition's writer queue, so offsets are assigned in
 * arrival order by a single writer. The log end offset advances only after
 * the bytes are written, so reads never see a partial batch; durable
 * appends resolve once group-commit.ts has fsynced them.
 */
import { encodeEndTxnMarkerBatch } from "@kappa/kafka-protocol";
import type { ValidatedBatch } from "./append-validation.ts";
import { ATTR_LOG_APPEND_TIME, ATTR_TRANSACTIONAL, OFF_LEADER_EPOCH, readHeader, setBaseOffset, setLogAppendTime, type BatchHeader } from "./batch.ts";
import type { LogConfig } from "./configs.ts";
import type { StorageError } from "./errors.ts";
import type { GroupCommit } from "./group-commit.ts";
import { lastSequence, type BatchMetadata, type ProducerStateTable } from "./producer-state.ts";
import type { Segment } from "./segment.ts";

const INT32_MAX = 2147483647;

export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  /** The broker time stamped on LogAppendTime topics, −1 for CreateTime. */
  logAppendTime: bigint;
  logStartOffset: bigint;
  /** True when this was a retry of one of the producer's last 5 batches (nothing appended). */
  duplicate: boolean;
}

/** One append waiting for the writer: the request buffer, its validated batches and its promise. */
export interface PendingAppend {
  data: Buffer;
  batches: ValidatedBatch[];
  durable: boolean;
  /** Set for a transaction marker written by the coordinator (the one batch is its control batch). */
  marker?: { commit: boolean; coordinatorEpoch: number };
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

/** A transaction marker as the coordinator hands it over (Kafka's WriteTxnMarkers entry for one partition). */
export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
}

/** The append of a transaction marker: its control batch, always durable (Kafka writes markers with acks=all). */
export function txnMarkerAppend(marker: TxnMarker, now: number): Omit<PendingAppend, "resolve" | "reject"> {
  const data = encodeEndTxnMarkerBatch({
    producerId: BigInt(marker.producerId),
    producerEpoch: marker.producerEpoch,
    commit: marker.commit,
    coordinatorEpoch: marker.coordinatorEpoch,
    timestamp: BigInt(now),
  });
  return { data, batches: [{ pos: 0, header: readHeader(data, 0) }], durable: true, marker: { commit: marker.commit, coordinatorEpoch: marker.coordinatorEpoch } };
}

/** What the writer needs of the partition log (all current state, read at call time). */
export interface AppendLog {
  readonly commit: GroupCommit;
  config(): LogConfig;
  clock(): number;
  producers(): ProducerStateTable;
  /** The segment appended to. */
  active(): Segment;
  logStartOffset(): number;
  logEndOffset(): number;
  /** The bytes up to `offset` are written: reads may now see them. */
  advanceLogEnd(offset: number): void;
  /** Closes the active segment and starts a new one at the log end offset. */
  roll(): Promise<void>;
  /** Set once the log failed: nothing more is written. */
  failure(): StorageError | null;
  /** Awaited before record bytes are written (the first write makes the topic id durable: partition-metadata.ts). */
  beforeWrite(): Promise<void>;
  /** Writes `bufs` at `position`, the active segment's end (buffered, or direct: direct-io.ts). */
  writeActive(bufs: Buffer[], position: number): Promise<void>;
}

/** Assigns offsets to a group of appends and writes them with as few writes as possible. */
export async function writeAppendGroup(log: AppendLog, group: PendingAppend[]): Promise<void> {
  const failure = log.failure();
  if (failure) {
    for (const r of group) r.reject(failure);
    return;
  }
  const now = log.clock();
  let bufs: Buffer[] = [];
  let bytes = 0;
  let written: Array<{ req: PendingAppend; result: AppendResult; batches: BatchHeader[]; rel: number[] }> = [];
  let nextOffset = log.logEndOffset();

  const flushBufs = async (): Promise<void> => {
    if (bufs.length === 0) return;
    await log.beforeWrite();
    const seg = log.active();
    await log.writeActive(bufs, seg.size);
    const base = seg.size;
    let records = 0;
    for (const w of written) {
      for (let i = 0; i < w.batches.length; i++) {
        seg.trackBatch(w.batches[i]!, base + w.rel[i]!);
        records += w.batches[i]!.lastOffsetDelta + 1;
      }
    }
    seg.size += bytes;
    log.advanceLogEnd(nextOffset);
    for (const w of written) {
      w.result.logStartOffset = BigInt(log.logStartOffset());
      if (w.req.durable) log.commit.waitFlushed(Number(w.result.lastOffset) + 1).then(() => w.req.resolve(w.result), w.req.reject);
      else w.req.resolve(w.result);
    }
    bufs = [];
    bytes = 0;
    written = [];
    log.commit.afterWrite(records);
  };

  for (const req of group) {
    try {
      const first = req.batches[0]!.header;
      if (req.marker) {
        log.producers().checkMarker(first.producerId, first.producerEpoch, req.marker.coordinatorEpoch);
      } else if (first.producerId >= 0) {
        const lastSeq = lastSequence(first.baseSequence, first.lastOffsetDelta);
        const check = log.producers().check(first.producerId, first.producerEpoch, first.baseSequence, lastSeq);
        if (check.kind === "duplicate") {
          answerDuplicate(log, req, check.batch);
          continue;
        }
        log.producers().checkTransactionState(first.producerId, (first.attributes & ATTR_TRANSACTIONAL) !== 0);
      }
      const reqRecords = req.batches.reduce((n, b) => n + b.header.lastOffsetDelta + 1, 0);
      const seg = log.active();
      const pendingSize = seg.size + bytes;
      const rollBySize = pendingSize > 0 && pendingSize + req.data.length > log.config().segmentBytes;
      const rollByTime = seg.size > 0 && bytes === 0 && now - seg.rollingBaseTimestamp() > log.config().segmentMs;
      const rollByOffset = nextOffset + reqRecords - seg.baseOffset > INT32_MAX;
      if (rollBySize || rollByTime || rollByOffset) {
        await flushBufs();
        await log.roll();
      }

      const headers: BatchHeader[] = [];
      const rel: number[] = [];
      const baseOffset = nextOffset;
      for (const b of req.batches) {
        setBaseOffset(req.data, b.pos, nextOffset);
        req.data.writeInt32BE(0, b.pos + OFF_LEADER_EPOCH);
        const h = b.header;
        h.baseOffset = nextOffset;
        if (log.config().logAppendTime) {
          setLogAppendTime(req.data, b.pos, h.size, now);
          h.maxTimestamp = now;
          h.attributes |= ATTR_LOG_APPEND_TIME;
        }
        headers.push(h);
        rel.push(bytes + b.pos);
        nextOffset += h.lastOffsetDelta + 1;
        if (req.marker) {
          // The marker lands in the segment active now (rolls happen before offsets are assigned).
          const aborted = log.producers().applyMarker(h.producerId, h.producerEpoch, req.marker.coordinatorEpoch, h.baseOffset, req.marker.commit, now);
          if (aborted) log.active().txnIndex.append(aborted);
        } else {
          log.producers().trackBatch(h);
        }
      }
      bufs.push(req.data);
      bytes += req.data.length;
      written.push({
        req,
        batches: headers,
        rel,
        result: {
          baseOffset: BigInt(baseOffset),
          lastOffset: BigInt(nextOffset - 1),
          logAppendTime: log.config().logAppendTime ? BigInt(now) : -1n,
          logStartOffset: BigInt(log.logStartOffset()),
          duplicate: false,
        },
      });
    } catch (err) {
      req.reject(err);
    }
  }
  await flushBufs();
}

function answerDuplicate(log: AppendLog, req: PendingAppend, b: BatchMetadata): void {
  // The original may still be waiting for its fsync: a durable retry must wait too.
  const result: AppendResult = {
    baseOffset: BigInt(b.baseOffset),
    lastOffset: BigInt(b.lastOffset),
    logAppendTime: log.config().logAppendTime ? BigInt(b.timestamp) : -1n,
    logStartOffset: BigInt(log.logStartOffset()),
    duplicate: true,
  };
  if (req.durable) log.commit.waitFlushed(b.lastOffset + 1).then(() => req.resolve(result), req.reject);
  else req.resolve(result);
}
