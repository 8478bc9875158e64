const UNITS: [number, string][] = [
  [365 * 86_400_000, "year"],
  [30 * 86_400_000, "month"],
  [7 * 86_400_000, "week"],
  [86_400_000, "day"],
  [3_600_000, "hour"],
  [60_000, "minute"],
  [1000, "second"],
];

/** "7 days", "1 hour", "90 minutes"; -1 means forever, as in Kafka's retention.ms. */
export function formatDurationMs(ms: number): string {
  if (ms === -1) return "forever";
  if (ms === -2) return "same as retention";
  for (const [size, name] of UNITS) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return `${ms} ms`;
}

export function formatSeconds(seconds: number): string {
  return formatDurationMs(seconds * 1000);
}

/** A coarse duration since `iso`: "3 minutes", "2 days", "under a second" (for "waiting …", "not seen for …"). */
export function age(iso: string, now: number = Date.now()): string {
  const ms = Math.max(0, now - new Date(iso).getTime());
  for (const [size, name] of UNITS) {
    if (ms >= size) {
      const n = Math.floor(ms / size);
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return "under a second";
}

/** "just now", "1 minute ago", "3 days ago": when something happened. */
export function ago(iso: string, now: number = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  if (ms < 1000) return "just now";
  return `${age(iso, now)} ago`;
}

/** "in 3 days", "in 1 hour", "now": time left until `iso` (a sunset). */
export function until(iso: string, now: number = Date.now()): string {
  const ms = new Date(iso).getTime() - now;
  if (ms < 1000) return "now";
  for (const [size, name] of UNITS) {
    if (ms >= size) {
      const n = Math.floor(ms / size);
      return `in ${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return "now";
}

/*
 * Numbers and dates are formatted by hand, not with Intl (toLocaleString): the
 * first Intl call in a page costs 15–20 ms of ICU set-up on the main thread,
 * and these run while the page hydrates (four times that under Lighthouse's
 * simulated mobile CPU: a long task of its own). The output is what en-US /
 * en-GB gave, and server and browser now agree on it whatever their ICU.
 */

/** 1234567.891 → "1,234,567.89" (at most `maxFractionDigits`, no trailing zeros); en-US grouping. */
export function formatNumber(n: number, maxFractionDigits = 0): string {
  // Past 1e21 String() switches to exponent notation; no figure here gets there.
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) return String(n);
  const scale = 10 ** maxFractionDigits;
  const rounded = Math.round(Math.abs(n) * scale);
  const whole = Math.floor(rounded / scale);
  const fraction = maxFractionDigits > 0 ? String(rounded % scale).padStart(maxFractionDigits, "0").replace(/0+$/, "") : "";
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${n < 0 && rounded > 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

// en-GB's medium month names (ICU: "Sept", not "Sep").
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"];
const twoDigits = (n: number) => String(n).padStart(2, "0");

/** "14:05", the UTC time of day. */
export function formatUtcClock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${twoDigits(d.getUTCHours())}:${twoDigits(d.getUTCMinutes())}`;
}

/** "1 Dec 2026, 07:05 UTC" (en-GB medium date, short time, in UTC); "—" for none. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "Invalid Date UTC";
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${formatUtcClock(d.getTime())} UTC`;
}

export function humanize(value: string): string {
  const s = value.replace(/_/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A share (0–1) as a percentage with one decimal, rounded down: 99.96 % is never shown as 100 %. */
export function formatShare(share: number): string {
  return `${(Math.floor(share * 1000) / 10).toFixed(1)} %`;
}
