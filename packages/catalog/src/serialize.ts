import { Prisma } from "@prisma/client";

export type Jsonish<T> = T extends bigint
  ? number
  : T extends Prisma.Decimal
    ? number
    : T extends Date
      ? string
      : T extends (infer U)[]
        ? Jsonish<U>[]
        : T extends object
          ? { [K in keyof T]: Jsonish<T[K]> }
          : T;

/**
 * Makes catalog rows JSON-safe for the API and for server → client props:
 * BigInt and Decimal become numbers (retention in ms stays far below 2^53),
 * dates become ISO strings.
 */
export function toJson<T>(value: T): Jsonish<T> {
  return convert(value) as Jsonish<T>;
}

function convert(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Prisma.Decimal) return value.toNumber();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(convert);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = convert(v);
    return out;
  }
  return value;
}
