/** Topic ids: UUID strings in storage, 16 raw bytes on the wire. */

/** UUID string → the 16 bytes the wire protocol carries. */
export function topicIdToBytes(topicId: string): Buffer {
  return Buffer.from(topicId.replace(/-/g, ""), "hex");
}

/** 16 bytes → UUID string. */
export function topicIdFromBytes(bytes: Buffer): string {
  const h = bytes.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
