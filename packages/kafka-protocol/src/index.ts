export { ProtocolError, UnsupportedCompressionError } from "./errors.ts";
export { Reader, Writer, ZERO_UUID, uuidFromBytes, uuidToBytes } from "./primitives.ts";
export { crc32c } from "./crc32c.ts";
export {
  BATCH_HEADER_SIZE,
  BATCH_LOG_OVERHEAD,
  Compression,
  TimestampType,
  batchCrcMatches,
  compressionName,
  decodeRecordBatch,
  encodeRecordBatch,
  iterateBatches,
  readBatchHeader,
  setBaseOffset,
  setMaxTimestampAndRecrc,
  setPartitionLeaderEpoch,
} from "./record-batch.ts";
export type {
  BatchRecord,
  CompressionCode,
  CompressionName,
  DecodeRecordBatchOptions,
  EncodeRecordBatchOptions,
  RecordBatch,
  RecordBatchHeader,
  RecordHeader,
  RecordInput,
  TimestampTypeCode,
} from "./record-batch.ts";
