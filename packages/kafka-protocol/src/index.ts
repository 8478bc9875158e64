export { ProtocolError, UnsupportedCompressionError } from "./errors.ts";
export { Reader } from "./reader.ts";
export { Writer } from "./writer.ts";
export { ZERO_UUID, uuidFromBytes, uuidToBytes } from "./uuid.ts";
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
export { decodeFetchedRecords } from "./fetched-records.ts";
export { scramClient, type ScramClient, type ScramMechanism } from "./sasl-scram.ts";
export type { AbortedTransaction, DecodedFetch, FetchedRecord } from "./fetched-records.ts";
export {
  ControlRecordType,
  decodeControlRecordType,
  decodeEndTxnMarkerValue,
  encodeEndTxnMarkerBatch,
  encodeEndTxnMarkerRecord,
} from "./control-records.ts";
export type { EndTxnMarkerBatchOptions } from "./control-records.ts";
export { ApiKey } from "./generated/api-keys.ts";
export type { ApiKeyCode, ApiKeyName } from "./generated/api-keys.ts";
export { ErrorCode } from "./generated/error-codes.ts";
export type { ErrorCodeName } from "./generated/error-codes.ts";
export { errorMessage, errorName } from "./error-names.ts";
export {
  UnsupportedVersionError,
  apiKeys,
  apiName,
  apiVersionRange,
  decodeBody,
  encodeBody,
  messageDefinition,
  requestHeaderVersion,
  responseHeaderVersion,
} from "./codec.ts";
export type { MessageKind, WireBody } from "./codec.ts";
export {
  decodeRequest,
  decodeRequestHeader,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  encodeResponseParts,
} from "./frames.ts";
export { FrameAssembler } from "./frame-assembler.ts";
export type {
  ApiKeyWithBody,
  DecodedRequest,
  DecodedRequestHeader,
  DeepPartial,
  RequestHeader,
  RequestInput,
  ResponseInput,
} from "./frames.ts";
export { parseVersions, propertyName, stripJsonComments } from "./definition-types.ts";
export type { FieldDefinition, MessageDefinition, StructDefinition, VersionRange } from "./definition-types.ts";
export type * from "./generated/messages.ts";
