/*
 * Outages of the worker's two dependencies, PostgreSQL and Kafka (issue 8,
 * finding 13: the worker polled a stopped PostgreSQL every 500 ms). Each
 * failure of a loop that needs a dependency marks it down and pushes the next
 * try out by a capped exponential backoff with jitter (the same "equal
 * jitter" as task retries); the first success marks it up again. The health
 * report and WorkerInstance.status say which one is down, since when, and why.
 */
import { errorMessage } from "../log.ts";
import { backoffDelayMs } from "../reconcile/diff.ts";

export type Dependency = "database" | "kafka";

export interface DependencyHealth {
  status: "up" | "down";
  /** When it went down (ISO), null while up. */
  since: string | null;
  /** Consecutive failures since it went down. */
  failures: number;
  lastError: string | null;
  /** How long until the next try, while down. */
  retryInMs: number | null;
}

interface State {
  since: number | null;
  failures: number;
  lastError: string | null;
  retryAt: number;
}

export class OutageTracker {
  private readonly states: Record<Dependency, State> = {
    database: { since: null, failures: 0, lastError: null, retryAt: 0 },
    kafka: { since: null, failures: 0, lastError: null, retryAt: 0 },
  };
  /** Outages so far (a dependency going from answering to down), for the metrics. */
  private readonly outageCounts: Record<Dependency, number> = { database: 0, kafka: 0 };

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Records a failure; returns how long to wait before the next try. Loops
   * that were already running when the dependency went away fail together:
   * a failure inside the current wait does not count again (the count is of
   * tries made after waiting, so the backoff grows per try, not per loop).
   */
  failure(dependency: Dependency, error: unknown): number {
    const s = this.states[dependency];
    const now = this.now();
    if (s.since !== null && now < s.retryAt) {
      s.lastError = errorMessage(error).slice(0, 500);
      return s.retryAt - now;
    }
    if (s.since === null) this.outageCounts[dependency]++;
    s.since ??= now;
    s.failures++;
    s.lastError = errorMessage(error).slice(0, 500);
    const delay = backoffDelayMs(s.failures, this.baseMs, this.maxMs, this.random);
    s.retryAt = now + delay;
    return delay;
  }

  success(dependency: Dependency): void {
    const s = this.states[dependency];
    s.since = null;
    s.failures = 0;
    s.lastError = null;
    s.retryAt = 0;
  }

  /** How many times the dependency has gone down since this tracker started. */
  outages(dependency: Dependency): number {
    return this.outageCounts[dependency];
  }

  isDown(dependency: Dependency): boolean {
    return this.states[dependency].since !== null;
  }

  /** Milliseconds until the dependency may be tried again (0: now). */
  waitMs(dependency: Dependency): number {
    return Math.max(0, this.states[dependency].retryAt - this.now());
  }

  health(dependency: Dependency): DependencyHealth {
    const s = this.states[dependency];
    const down = s.since !== null;
    return {
      status: down ? "down" : "up",
      since: down ? new Date(s.since ?? 0).toISOString() : null,
      failures: s.failures,
      lastError: s.lastError,
      retryInMs: down ? this.waitMs(dependency) : null,
    };
  }

  /** "database unreachable since …: <error>" for each dependency down; empty when all are up. */
  describe(): string[] {
    return (["database", "kafka"] as const)
      .filter((d) => this.isDown(d))
      .map((d) => `${d === "database" ? "database (PostgreSQL)" : "Kafka"} unreachable since ${new Date(this.states[d].since ?? 0).toISOString()}: ${this.states[d].lastError ?? "no message"}`);
  }
}

/**
 * Which dependency an error came from. Prisma's errors (and the driver
 * adapter's) carry `clientVersion` or a Prisma/DriverAdapter name, also when
 * wrapped as a cause; everything else the worker's loops meet is Kafka's.
 */
export function failedDependency(error: unknown): Dependency {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (typeof e === "object") {
      const name = (e as { name?: unknown }).name;
      const ctor = (e as { constructor?: { name?: string } }).constructor?.name ?? "";
      if ("clientVersion" in e || (typeof name === "string" && /^(Prisma|DriverAdapterError)/.test(name)) || /^Prisma/.test(ctor)) return "database";
      e = (e as { cause?: unknown }).cause;
    } else break;
  }
  return "kafka";
}
