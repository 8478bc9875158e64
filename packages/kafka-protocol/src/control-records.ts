/**
 * Control records (KIP-98): the transaction markers a broker writes into a
 * partition when a transaction ends (Kafka's ControlRecordType and
 * EndTransactionMarker).
 *
 * A marker is a batch with the transactional and control attribute bits set,
 * the producer id and epoch of the transaction, base sequence −1, and exactly
 * one record whose
 *   key   = version int16 (0), type int16 (0 ABORT, 1 COMMIT)
 *   value = version int16 (0), coordinator_epoch int32
 * Readers must accept newer key/value versions with trailing fields
 * (Kafka reads the fields it knows and ignores the rest).
 */
import { ProtocolError } from "./errors.ts";
import { encodeRecordBatch } from "./record-batch.ts";

export const ControlRecordType = {
  ABORT: 0,
  COMMIT: 1,
} as const;

const CURRENT_VERSION = 0;

/** Key and value of an end-transaction marker record. */
export function encodeEndTxnMarkerRecord(commit: boolean, coordinatorEpoch: number): { key: Buffer; value: Buffer } {
  const key = Buffer.allocUnsafe(4);
  key.writeInt16BE(CURRENT_VERSION, 0);
  key.writeInt16BE(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 2);
  const value = Buffer.allocUnsafe(6);
  value.writeInt16BE(CURRENT_VERSION, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return { key, value };
}

/** The control record type from a control record's key (−1 when unknown to this codec is not possible: any int16 is returned). */
export function decodeControlRecordType(key: Uint8Array | null): number {
  if (!key || key.length < 4) throw new ProtocolError(`control record key of ${key?.length ?? 0} bytes is too short`);
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const version = b.readInt16BE(0);
  if (version < 0) throw new ProtocolError(`invalid control record key version ${version}`);
  return b.readInt16BE(2);
}

/** The coordinator epoch of an end-transaction marker's value. */
export function decodeEndTxnMarkerValue(value: Uint8Array | null): { coordinatorEpoch: number } {
  if (!value || value.length < 6) throw new ProtocolError(`end transaction marker value of ${value?.length ?? 0} bytes is too short`);
  const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const version = b.readInt16BE(0);
  if (version < 0) throw new ProtocolError(`invalid end transaction marker version ${version}`);
  return { coordinatorEpoch: b.readInt32BE(2) };
}

export interface EndTxnMarkerBatchOptions {
  producerId: bigint;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
  /** Broker time of the marker (milliseconds). */
  timestamp: bigint;
  baseOffset?: bigint;
}

/** A complete marker batch with a valid CRC, ready to be given an offset and appended. */
export function encodeEndTxnMarkerBatch(opts: EndTxnMarkerBatchOptions): Buffer {
  const { key, value } = encodeEndTxnMarkerRecord(opts.commit, opts.coordinatorEpoch);
  return encodeRecordBatch({
    baseOffset: opts.baseOffset ?? 0n,
    baseTimestamp: opts.timestamp,
    producerId: opts.producerId,
    producerEpoch: opts.producerEpoch,
    baseSequence: -1,
    isTransactional: true,
    isControl: true,
    records: [{ key, value }],
  });
}
