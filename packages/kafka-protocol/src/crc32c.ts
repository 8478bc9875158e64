/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * RecordBatch v2 (Kafka's Crc32C.java). Slicing-by-8: eight 256-entry tables
 * let the loop consume 8 bytes per iteration, several times faster than the
 * byte-at-a-time table walk for the 1 MB batches the broker verifies.
 */

const POLY = 0x82f63b78;
const T = new Int32Array(8 * 256);

for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[i] = c;
}
for (let i = 0; i < 256; i++) {
  for (let t = 1; t < 8; t++) {
    const prev = T[(t - 1) * 256 + i]!;
    T[t * 256 + i] = (prev >>> 8) ^ T[prev & 0xff]!;
  }
}

/**
 * CRC-32C of `buf[start, end)`. Pass a previous result as `crc` to continue a
 * running checksum over several chunks.
 */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length, crc = 0): number {
  let c = ~crc;
  let i = start;
  const fast = end - ((end - start) & 7);
  while (i < fast) {
    c ^= buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
    c =
      T[1792 + (c & 0xff)]! ^
      T[1536 + ((c >>> 8) & 0xff)]! ^
      T[1280 + ((c >>> 16) & 0xff)]! ^
      T[1024 + (c >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^
      T[512 + buf[i + 5]!]! ^
      T[256 + buf[i + 6]!]! ^
      T[buf[i + 7]!]!;
    i += 8;
  }
  while (i < end) {
    c = (c >>> 8) ^ T[(c ^ buf[i]!) & 0xff]!;
    i++;
  }
  return ~c >>> 0;
}
