// snappyjs 0.7.0 ships no type declarations; these are the two functions the
// broker uses (raw Snappy blocks, no framing).
declare module "snappyjs" {
  /** Throws when the bitstream is invalid or its declared length exceeds `maxLength`. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(uncompressed: Uint8Array): Uint8Array;
}
