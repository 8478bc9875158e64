/**
 * UUIDs (topic ids) in Kafka's own text form, Uuid.toString(): 22
 * characters of unpadded base64url over the 16 bytes.
 */
import { ProtocolError } from "./errors.ts";

export const UUID_BYTES = 16;
export const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";

/** Writes the 16 bytes of `s` at `offset`; throws unless `s` is 22 characters of base64url. */
export function writeUuid(buf: Buffer, offset: number, s: string): void {
  if (s.length !== 22 || buf.write(s, offset, UUID_BYTES, "base64url") !== UUID_BYTES) {
    throw new ProtocolError(`invalid uuid ${JSON.stringify(s)}: expected 22 characters of base64url`);
  }
}

export function uuidToBytes(s: string): Buffer {
  const b = Buffer.alloc(UUID_BYTES);
  writeUuid(b, 0, s);
  return b;
}

export function uuidFromBytes(b: Uint8Array): string {
  if (b.length !== UUID_BYTES) throw new ProtocolError(`a uuid is 16 bytes, got ${b.length}`);
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString("base64url");
}
