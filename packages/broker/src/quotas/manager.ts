// Client quota enforcement, as Apache Kafka's ClientQuotaManager does it.
//
// Resolution (Kafka's DefaultQuotaCallback): for each quota type separately,
// the first entity in this order that has a value for the type's key is in
// force for a request from (user, client-id):
//   1. user=<user>, client-id=<client-id>      5. user=<default>, client-id=<default>
//   2. user=<user>, client-id=<default>        6. user=<default>
//   3. user=<user>                              7. client-id=<client-id>
//   4. user=<default>, client-id=<client-id>  8. client-id=<default>
// Connections whose quota comes from the same level share one sensor, keyed as
// Kafka keys its metric tags: (user, client-id) for levels 1, 2, 4, 5; (user)
// for 3 and 6 (so each user has its own budget under a default user quota);
// (client-id) for 7 and 8. Unauthenticated connections are user ANONYMOUS.
//
// Measurement (Kafka's Rate over a SampledStat): `quota.window.num` samples of
// `quota.window.size.seconds` each; a sample older than num × size is reset;
// the rate is the samples' sum over the elapsed time since the oldest sample,
// counted as at least (num − 1) windows. A recording that takes the rate above
// the bound gives a throttle time of (rate − bound) / bound × window, capped at
// num × size seconds (Kafka's maxThrottleTimeMs).
import type { BrokerConfig } from "../config.ts";
import type { QuotaEntity, QuotaKey } from "./entity.ts";
import type { ClientQuotaStore } from "./store.ts";

export type QuotaType = "produce" | "fetch" | "request";

export const QUOTA_KEY_OF: Readonly<Record<QuotaType, QuotaKey>> = {
  produce: "producer_byte_rate",
  fetch: "consumer_byte_rate",
  request: "request_percentage",
};

/** Kafka's SampledStat + Rate, for one sensor. */
export class SampledRate {
  private readonly samples: Array<{ start: number; value: number }> = [];
  private current = 0;
  lastRecordMs = 0;

  constructor(
    private readonly numSamples: number,
    private readonly windowMs: number,
  ) {}

  record(value: number, nowMs: number): void {
    this.lastRecordMs = nowMs;
    let sample = this.samples[this.current];
    if (!sample) {
      sample = { start: nowMs, value: 0 };
      this.samples.push(sample);
      this.current = this.samples.length - 1;
    } else if (nowMs - sample.start >= this.windowMs) {
      this.current = (this.current + 1) % this.numSamples;
      const reuse = this.samples[this.current];
      if (reuse) {
        reuse.start = nowMs;
        reuse.value = 0;
        sample = reuse;
      } else {
        sample = { start: nowMs, value: 0 };
        this.samples.push(sample);
      }
    }
    sample.value += value;
  }

  private purge(nowMs: number): void {
    const expireAge = this.numSamples * this.windowMs;
    for (const s of this.samples) {
      if (nowMs - s.start >= expireAge) {
        s.start = nowMs;
        s.value = 0;
      }
    }
  }

  /** The measured window in ms (Kafka's Rate.windowSize). */
  windowSizeMs(nowMs: number): number {
    this.purge(nowMs);
    const oldest = this.samples.length === 0 ? nowMs : Math.min(...this.samples.map((s) => s.start));
    let elapsed = nowMs - oldest;
    const fullWindows = Math.floor(elapsed / this.windowMs);
    const minFullWindows = this.numSamples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.windowMs;
    return elapsed;
  }

  /** Units per second. */
  rate(nowMs: number): number {
    const windowMs = this.windowSizeMs(nowMs);
    let total = 0;
    for (const s of this.samples) total += s.value;
    return windowMs <= 0 ? 0 : total / (windowMs / 1000);
  }
}

interface Resolved {
  bound: number;
  sensorKey: string;
}

/** A sensor unused for this long is dropped (Kafka expires quota sensors after an hour of inactivity). */
const SENSOR_EXPIRY_MS = 60 * 60 * 1000;

export class ClientQuotaManager {
  private readonly sensors = new Map<string, SampledRate>();
  private cacheGeneration = -1;
  private readonly cache = new Map<string, Resolved | null>();
  private lastSweep = 0;
  /** Clock for tests. */
  now: () => number = () => Date.now();

  constructor(
    readonly store: ClientQuotaStore,
    private readonly config: Pick<BrokerConfig, "quota.window.num" | "quota.window.size.seconds">,
  ) {}

  private get windowMs(): number {
    return this.config["quota.window.size.seconds"] * 1000;
  }

  private get maxThrottleMs(): number {
    return this.windowMs * this.config["quota.window.num"];
  }

  /** The quota in force for (user, client-id) and the sensor it is measured on; null = unlimited. */
  resolve(type: QuotaType, user: string, clientId: string): Resolved | null {
    if (this.cacheGeneration !== this.store.generation) {
      this.cache.clear();
      this.cacheGeneration = this.store.generation;
    }
    const cacheKey = `${type}\u0000${user}\u0000${clientId}`;
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) return cached;
    const key = QUOTA_KEY_OF[type];
    const levels: Array<[QuotaEntity, "both" | "user" | "client"]> = [
      [{ user, "client-id": clientId }, "both"],
      [{ user, "client-id": null }, "both"],
      [{ user }, "user"],
      [{ user: null, "client-id": clientId }, "both"],
      [{ user: null, "client-id": null }, "both"],
      [{ user: null }, "user"],
      [{ "client-id": clientId }, "client"],
      [{ "client-id": null }, "client"],
    ];
    let resolved: Resolved | null = null;
    for (const [entity, tags] of levels) {
      const bound = this.store.get(entity)?.get(key);
      if (bound === undefined) continue;
      const sensorKey = tags === "both" ? `${type}|u:${user}|c:${clientId}` : tags === "user" ? `${type}|u:${user}|` : `${type}||c:${clientId}`;
      resolved = { bound, sensorKey };
      break;
    }
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(cacheKey, resolved);
    return resolved;
  }

  /** Whether any quota (produce, fetch or request) is in force for (user, client-id). */
  hasQuota(user: string, clientId: string): boolean {
    if (this.store.size === 0) return false;
    return this.resolve("produce", user, clientId) !== null || this.resolve("fetch", user, clientId) !== null || this.resolve("request", user, clientId) !== null;
  }

  /**
   * Records `value` (bytes, or request-handler percentage units) for the client
   * and answers the throttle time in ms (0 when within its quota or unquoted).
   */
  recordAndGetThrottleTimeMs(type: QuotaType, user: string, clientId: string, value: number): number {
    const q = this.resolve(type, user, clientId);
    if (!q) return 0;
    const now = this.now();
    this.sweep(now);
    let sensor = this.sensors.get(q.sensorKey);
    if (!sensor) this.sensors.set(q.sensorKey, (sensor = new SampledRate(this.config["quota.window.num"], this.windowMs)));
    sensor.record(value, now);
    const rate = sensor.rate(now);
    if (rate <= q.bound) return 0;
    const throttle = Math.round(((rate - q.bound) / q.bound) * sensor.windowSizeMs(now));
    return Math.min(throttle, this.maxThrottleMs);
  }

  /** Takes back a recording (a throttled Fetch answers no data, so its bytes do not count, as in Kafka). */
  unrecord(type: QuotaType, user: string, clientId: string, value: number): void {
    const q = this.resolve(type, user, clientId);
    if (!q) return;
    this.sensors.get(q.sensorKey)?.record(-value, this.now());
  }

  /**
   * Kafka's getMaxValueInQuotaWindow: the most a client may take in one go,
   * bound × (num − 1) × window, or Infinity when unquoted. Caps a Fetch's size.
   */
  maxValueInQuotaWindow(type: QuotaType, user: string, clientId: string): number {
    const q = this.resolve(type, user, clientId);
    if (!q) return Infinity;
    return q.bound * Math.max(1, this.config["quota.window.num"] - 1) * this.config["quota.window.size.seconds"];
  }

  /** The measured rate of the sensor a client's requests count on (tests and observability). */
  measuredRate(type: QuotaType, user: string, clientId: string): number {
    const q = this.resolve(type, user, clientId);
    const sensor = q ? this.sensors.get(q.sensorKey) : undefined;
    return sensor ? sensor.rate(this.now()) : 0;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, s] of this.sensors) if (now - s.lastRecordMs > SENSOR_EXPIRY_MS) this.sensors.delete(k);
  }
}

/** The quota user of a session's principal (`User:alice` → alice). */
export function quotaUser(principal: string): string {
  return principal.startsWith("User:") ? principal.slice(5) : principal;
}
