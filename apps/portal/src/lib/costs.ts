/*
 * The Costs page's types (the answer of GET /api/v1/costs) and its CSV export.
 * Browser-safe: no catalog import.
 */

export interface CostTrendPoint {
  month: string;
  total: string;
}

export interface CostProduct {
  id: string;
  name: string;
  topic: string | null;
  usage: { bytesIn: number; bytesOut: number; hotStorageGbMonth: number; tieredStorageGbMonth: number; partitionHours: number };
  cost: { hotStorage: string; tieredStorage: string; in: string; out: string; partitions: string; total: string };
  producerShare: string;
  split: { domainId: string; slug: string; bytesRead: number; amount: string }[];
  trend: CostTrendPoint[];
}

export interface CostDomain {
  id: string;
  slug: string;
  name: string;
  total: string;
  ownProductsCost: string;
  producerShare: string;
  chargedToOthers: string;
  chargedToThisDomain: string;
  products: CostProduct[];
  charges: { productId: string; productName: string; topic: string | null; producerDomain: string; bytesRead: number; amount: string }[];
  trend: CostTrendPoint[];
}

export interface Costs {
  month: string;
  currency: string;
  prices: { currency: string; hotStorageGbMonth: number; tieredStorageGbMonth: number; gbIn: number; gbOut: number; partitionHour: number };
  chargeback: "consumers" | "producer";
  policyVersion: number;
  scope: "platform" | "domains";
  domains: CostDomain[];
  total: string;
  platformTotal: string | null;
  trend: CostTrendPoint[];
}

export interface ProductCost {
  month: string;
  currency: string;
  chargeback: "consumers" | "producer";
  total: string;
  producerShare: string;
  chargedToConsumers: string;
  trend: CostTrendPoint[];
}

/** An amount ("12.345678") as money with two decimals, e.g. "EUR 12.35". */
export function formatMoney(amount: string, currency: string): string {
  const value = Number(amount);
  return `${currency} ${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** Bytes in decimal units (GB = 10^9 bytes, as the price list counts them). */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB", "PB"];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

function csvCell(value: string | number): string {
  const text = String(value);
  // Quote what needs it, and keep a spreadsheet from running a cell as a formula.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === "string" ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const CSV_HEADER = [
  "month",
  "currency",
  "domain",
  "kind",
  "product",
  "topic",
  "producer_domain",
  "charged_domain",
  "bytes_in",
  "bytes_out",
  "hot_storage_gb_month",
  "tiered_storage_gb_month",
  "partition_hours",
  "amount",
] as const;

/**
 * Per domain: a line per product of its own (kind "product", amount = the
 * product's cost), the part it bears itself ("producer_share") and each share
 * charged to a consuming domain ("charge"); a line per share of another
 * product this domain is charged for ("charged_in"); and its total
 * ("domain_total" = its producer_share lines + its charged_in lines). The
 * domain totals add up to the "total" line.
 */
export function costsCsv(costs: Costs): string {
  const lines: (string | number)[][] = [[...CSV_HEADER]];
  for (const d of costs.domains) {
    for (const p of d.products) {
      lines.push([costs.month, costs.currency, d.slug, "product", p.name, p.topic ?? "", d.slug, "", p.usage.bytesIn, p.usage.bytesOut, p.usage.hotStorageGbMonth, p.usage.tieredStorageGbMonth, p.usage.partitionHours, p.cost.total]);
      lines.push([costs.month, costs.currency, d.slug, "producer_share", p.name, p.topic ?? "", d.slug, d.slug, "", "", "", "", "", p.producerShare]);
      for (const s of p.split) lines.push([costs.month, costs.currency, d.slug, "charge", p.name, p.topic ?? "", d.slug, s.slug, "", s.bytesRead, "", "", "", s.amount]);
    }
    for (const c of d.charges) lines.push([costs.month, costs.currency, d.slug, "charged_in", c.productName, c.topic ?? "", c.producerDomain, d.slug, "", c.bytesRead, "", "", "", c.amount]);
    lines.push([costs.month, costs.currency, d.slug, "domain_total", "", "", "", d.slug, "", "", "", "", "", d.total]);
  }
  lines.push([costs.month, costs.currency, "", "total", "", "", "", "", "", "", "", "", "", costs.total]);
  return lines.map((l) => l.map(csvCell).join(",")).join("\r\n") + "\r\n";
}
