import type { Prices } from "./prices.ts";

/*
 * The arithmetic of costs, pure: amounts are integers in millionths of the
 * currency (micros), so sums and splits are exact.
 */

const GB = 1e9;

export interface ProductUsage {
  productId: string;
  /** The producing domain. */
  domainId: string;
  bytesIn: bigint;
  bytesOut: bigint;
  localByteHours: bigint;
  remoteByteHours: bigint;
  partitionMinutes: bigint;
  /** Bytes read per consuming domain (one entry per subscription row). */
  reads: { domainId: string; bytes: bigint }[];
}

const micros = (quantity: number, pricePerUnit: number) => BigInt(Math.round(quantity * pricePerUnit * 1e6));

/** A product's cost of one month (monthHours: the hours of that month, for GB-months). */
export function costOfUsage(u: Omit<ProductUsage, "reads">, prices: Prices, monthHours: number) {
  const hotStorage = micros(Number(u.localByteHours) / GB / monthHours, prices.hotStorageGbMonth);
  const tieredStorage = micros(Number(u.remoteByteHours) / GB / monthHours, prices.tieredStorageGbMonth);
  const inCost = micros(Number(u.bytesIn) / GB, prices.gbIn);
  const out = micros(Number(u.bytesOut) / GB, prices.gbOut);
  const partitions = micros(Number(u.partitionMinutes) / 60, prices.partitionHour);
  return { hotStorage, tieredStorage, in: inCost, out, partitions, total: hotStorage + tieredStorage + inCost + out + partitions };
}

/**
 * Splits `amount` in proportion to the weights (largest remainders, ties by
 * key), so the parts always add up to the amount exactly.
 */
export function allocate(amount: bigint, parts: { key: string; weight: bigint }[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const total = parts.reduce((s, p) => s + (p.weight > 0n ? p.weight : 0n), 0n);
  if (total === 0n || parts.length === 0) return out;
  let given = 0n;
  const remainders: { key: string; rest: bigint }[] = [];
  for (const p of parts) {
    const w = p.weight > 0n ? p.weight : 0n;
    const share = (amount * w) / total;
    out.set(p.key, share);
    given += share;
    remainders.push({ key: p.key, rest: (amount * w) % total });
  }
  remainders.sort((a, b) => (a.rest === b.rest ? a.key.localeCompare(b.key) : a.rest > b.rest ? -1 : 1));
  for (let i = 0; given < amount && remainders.length > 0; i = (i + 1) % remainders.length) {
    const r = remainders[i]!;
    out.set(r.key, (out.get(r.key) ?? 0n) + 1n);
    given += 1n;
  }
  return out;
}

/** Micros as a decimal string with six decimals ("12.345678"). */
export function formatMicros(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(6, "0");
  return `${negative ? "-" : ""}${whole}.${frac}`;
}

/** The inverse of formatMicros (for tests and exports). */
export function parseMicros(text: string): bigint {
  const m = /^(-?)(\d+)\.(\d{6})$/.exec(text);
  if (!m) throw new Error(`Not an amount: ${text}`);
  const v = BigInt(m[2]!) * 1_000_000n + BigInt(m[3]!);
  return m[1] ? -v : v;
}
