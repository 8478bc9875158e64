/**
 * Thrown for any malformed wire input: a read past the end of the buffer, a
 * negative or impossible length, a varint that does not terminate, or a value
 * that the message definition does not allow (for example null in a field
 * that is not nullable in that version). The broker answers by closing the
 * connection, as Kafka does for unparseable requests.
 */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Thrown when a record batch uses a codec this package cannot decompress
 * (snappy, lz4, zstd). Batches with these codecs can still be stored and
 * served untouched: their header is readable without decompressing.
 */
export class UnsupportedCompressionError extends Error {
  override readonly name = "UnsupportedCompressionError";
  constructor(
    readonly codec: number,
    message = `record batch compression codec ${codec} is not supported`,
  ) {
    super(message);
  }
}
