// What happens after a failed SASL authentication (issue 30 item 7, brute force):
//
// - Kafka's `connection.failed.authentication.delay.ms` (KIP-306, default 100):
//   the failure answer is held back that long, then the connection closes, so a
//   guessing client gets at most one attempt per connection per delay.
// - Kappa-specific backoff per claimed user name and per client address: after
//   `sasl.failed.authentication.backoff.threshold` failures (counted until a
//   success of that user, or until FAILURE_MEMORY_MS pass without a failure) the key is in
//   backoff for `sasl.failed.authentication.backoff.ms`, doubled for each
//   further failure up to `sasl.failed.authentication.backoff.max.ms`.
//   * A user name in backoff: every attempt for it is refused without checking
//     the password (the same answer as a wrong password, after the same delay)
//     and does not count as a failure, so the backoff ends on schedule; the right
//     password works again once it has. Unknown names are tracked like known
//     ones, so the backoff reveals nothing about which users exist.
//   * An address in backoff: its attempts are still checked, and a right
//     password is answered at once, but a failure is answered only after the
//     delay plus the address's remaining backoff. Refusing the address outright
//     would let one client with a wrong password lock out every other client
//     behind the same address (on the embedded broker: the worker, the portal
//     and the user's own tools all connect from 127.0.0.1).
import type { Logger } from "../../broker.ts";

/** A key's failures are forgotten this long after its last failure. */
export const FAILURE_MEMORY_MS = 15 * 60 * 1000;
/** At most one failure summary line per this interval. */
export const LOG_INTERVAL_MS = 60 * 1000;
/** Keys tracked at most (least recently failed ones are dropped first), so spraying user names cannot grow memory. */
export const MAX_TRACKED_KEYS = 10_000;
/** Distinct addresses and user names counted per summary line; the rest are counted under "others". */
const MAX_SUMMARY_KEYS = 1000;
const OTHERS = "(others)";

/** Client-chosen text (user names, mechanism names) as it goes into a log line: control characters escaped, at most 100 characters. */
export function loggable(text: string): string {
  let escaped = "";
  for (const c of text) {
    const code = c.charCodeAt(0);
    escaped += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : c;
  }
  return escaped.length > 100 ? `${escaped.slice(0, 100)}…` : escaped;
}

function countInto(m: Map<string, number>, raw: string): void {
  const key = loggable(raw);
  const k = m.has(key) || m.size < MAX_SUMMARY_KEYS ? key : OTHERS;
  m.set(k, (m.get(k) ?? 0) + 1);
}

export interface FailedAuthSettings {
  delayMs: number;
  /** 0 turns the backoff off. */
  threshold: number;
  backoffMs: number;
  maxBackoffMs: number;
}

interface KeyState {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
}

interface Pending {
  since: number;
  failures: number;
  refusedInBackoff: number;
  byAddress: Map<string, number>;
  byUser: Map<string, number>;
  backoffsStarted: string[];
  lastReason: string;
}

export class FailedAuthGuard {
  private readonly keys = new Map<string, KeyState>();
  private pending: Pending | null = null;
  private lastLogAt = -Infinity;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly settings: FailedAuthSettings,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
    private readonly logIntervalMs = LOG_INTERVAL_MS,
  ) {}

  /** Milliseconds left of the backoff of a user name (0 when it is not in backoff). */
  userBackoffLeft(user: string): number {
    return this.left(`user:${user}`);
  }

  /** Milliseconds left of the backoff of a client address (0 when it is not in backoff). */
  addressBackoffLeft(address: string): number {
    return this.left(`addr:${address}`);
  }

  private left(key: string): number {
    const now = this.clock();
    const s = this.state(key, now);
    return s ? Math.max(0, s.blockedUntil - now) : 0;
  }

  /** A real failed attempt (wrong password, unknown user, malformed exchange). */
  recordFailure(address: string, user: string | null, mechanism: string, reason: string): void {
    const now = this.clock();
    this.bump(`addr:${address}`, `address ${address}`, now);
    if (user !== null) this.bump(`user:${user}`, `user ${user}`, now);
    this.note(address, user, `${mechanism}: ${reason}`, false);
  }

  /** An attempt refused because its address or user was in backoff. */
  recordRefusal(address: string, user: string | null, mechanism: string): void {
    this.note(address, user, `${mechanism}: refused during backoff`, true);
  }

  /**
   * A successful authentication clears the user's failures. Not the address's:
   * behind a shared address another client's success must not reset a guessing
   * client's count.
   */
  recordSuccess(user: string): void {
    this.keys.delete(`user:${user}`);
  }

  /** Writes the pending summary now (tests; broker stop). */
  flushLog(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.lastLogAt = this.clock();
    const top = (m: Map<string, number>) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k, n]) => `${k} ×${n}`)
        .join(", ") + (m.size > 5 ? `, … (${m.size} in all)` : "");
    const secs = ((this.clock() - p.since) / 1000).toFixed(1);
    const parts = [
      `${p.failures + p.refusedInBackoff} failed SASL authentication(s) in ${secs} s (${p.failures} checked, ${p.refusedInBackoff} refused during backoff)`,
      `from ${top(p.byAddress)}`,
    ];
    if (p.byUser.size > 0) parts.push(`users ${top(p.byUser)}`);
    if (p.backoffsStarted.length > 0) parts.push(`backoff started for ${p.backoffsStarted.slice(0, 5).join(", ")}${p.backoffsStarted.length > 5 ? `, … (${p.backoffsStarted.length})` : ""}`);
    parts.push(`last reason: ${p.lastReason}`);
    this.logger.info(parts.join("; "));
  }

  close(): void {
    this.flushLog();
  }

  private state(key: string, now: number): KeyState | undefined {
    const s = this.keys.get(key);
    if (s && now - s.lastFailureAt > FAILURE_MEMORY_MS) {
      this.keys.delete(key);
      return undefined;
    }
    return s;
  }

  private bump(key: string, label: string, now: number): void {
    const s = this.state(key, now) ?? { failures: 0, lastFailureAt: now, blockedUntil: 0 };
    s.failures++;
    s.lastFailureAt = now;
    const { threshold, backoffMs, maxBackoffMs } = this.settings;
    if (threshold > 0 && s.failures >= threshold) {
      const exponent = Math.min(30, s.failures - threshold);
      const wasBlocked = s.blockedUntil > now;
      s.blockedUntil = now + Math.min(maxBackoffMs, backoffMs * 2 ** exponent);
      if (!wasBlocked) this.pendingSummary(now).backoffsStarted.push(`${loggable(label)} (${s.failures} failures, ${s.blockedUntil - now} ms)`);
    }
    // Re-insert so the map's order is least recently failed first.
    this.keys.delete(key);
    this.keys.set(key, s);
    while (this.keys.size > MAX_TRACKED_KEYS) {
      const oldest = this.keys.keys().next().value;
      if (oldest === undefined) break;
      this.keys.delete(oldest);
    }
  }

  private pendingSummary(now: number): Pending {
    this.pending ??= { since: now, failures: 0, refusedInBackoff: 0, byAddress: new Map(), byUser: new Map(), backoffsStarted: [], lastReason: "" };
    return this.pending;
  }

  private note(address: string, user: string | null, reason: string, refused: boolean): void {
    const now = this.clock();
    const p = this.pendingSummary(now);
    if (refused) p.refusedInBackoff++;
    else p.failures++;
    countInto(p.byAddress, address);
    if (user !== null) countInto(p.byUser, user);
    p.lastReason = loggable(reason);
    const due = this.lastLogAt + this.logIntervalMs - now;
    if (due <= 0) {
      this.flushLog();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flushLog();
      }, due);
      this.timer.unref();
    }
  }
}
