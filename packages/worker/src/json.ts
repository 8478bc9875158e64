import type { Prisma } from "@prisma/client";

/** A value as Prisma JSON: through JSON, with bigints as decimal strings (JSON has no 64-bit integers). */
export function jsonSafe(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))) as Prisma.InputJsonValue;
}
