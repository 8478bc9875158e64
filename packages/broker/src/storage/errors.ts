/**
 * Errors the storage engine reports to the request handlers. Each carries the
 * Kafka error code the handler should put in its response (numbers from
 * Kafka's Errors.java), so handlers map `err.code` without string matching.
 */
export const StorageErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  MESSAGE_TOO_LARGE: 10,
  INVALID_TOPIC_EXCEPTION: 17,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_CONFIG: 40,
  INVALID_REQUEST: 42,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  TRANSACTION_COORDINATOR_FENCED: 52,
  KAFKA_STORAGE_ERROR: 56,
  GROUP_ID_NOT_FOUND: 69,
  INVALID_TIMESTAMP: 32,
  INVALID_RECORD: 87,
} as const;

export type StorageErrorName = keyof typeof StorageErrorCode;

export class StorageError extends Error {
  readonly code: number;
  constructor(
    readonly errorName: StorageErrorName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "StorageError";
    this.code = StorageErrorCode[errorName];
  }
}
