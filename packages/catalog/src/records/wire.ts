/*
 * Bytes as the message browser shows them. Values may carry the Confluent
 * wire format (magic byte 0, a 4-byte big-endian schema id, then the encoded
 * value); anything that does not decode is shown as escaped text and hex,
 * never interpreted as markup, with a bounded length.
 */

export const MAGIC_BYTE = 0;

export interface ConfluentFrame {
  schemaId: number;
  payload: Buffer;
}

/** The Confluent framing of `bytes`, or null when it cannot be one. */
export function confluentFrame(bytes: Buffer): ConfluentFrame | null {
  if (bytes.length < 5 || bytes[0] !== MAGIC_BYTE) return null;
  return { schemaId: bytes.readUInt32BE(1), payload: bytes.subarray(5) };
}

/** How many bytes of an undecodable value are shown. */
export const RAW_PREVIEW_BYTES = 4096;

export interface RawBytes {
  /** Total size. */
  bytes: number;
  /** First RAW_PREVIEW_BYTES as hex. */
  hex: string;
  /** The same bytes with printable ASCII kept and everything else as \xNN (\n, \t, \\ escaped). */
  escaped: string;
  truncated: boolean;
}

export function rawBytes(bytes: Buffer): RawBytes {
  const shown = bytes.subarray(0, RAW_PREVIEW_BYTES);
  let escaped = "";
  for (const b of shown) {
    if (b === 0x5c) escaped += "\\\\";
    else if (b === 0x0a) escaped += "\\n";
    else if (b === 0x09) escaped += "\\t";
    else if (b >= 0x20 && b < 0x7f) escaped += String.fromCharCode(b);
    else escaped += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return { bytes: bytes.length, hex: shown.toString("hex"), escaped, truncated: bytes.length > shown.length };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8 text, or null when the bytes are not valid UTF-8. */
export function utf8Text(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** A record key as text (valid UTF-8 without control characters) or hex. */
export function renderKey(key: Buffer | null): { text: string | null; hex: string | null } | null {
  if (key === null) return null;
  const text = utf8Text(key);
  // eslint-disable-next-line no-control-regex
  if (text !== null && !/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) return { text, hex: null };
  return { text: null, hex: key.toString("hex") };
}

/** How a masked record key is shown (its bytes never leave the server). */
export const MASKED_KEY: { text: string; hex: null } = { text: "[masked]", hex: null };
