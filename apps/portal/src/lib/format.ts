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

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";
}

export function humanize(value: string): string {
  const s = value.replace(/_/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}
