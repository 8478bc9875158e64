import { CatalogError } from "./errors.ts";

/*
 * Overload: every pooled connection is busy for longer than a request may
 * wait, or the database refuses new connections. That is the platform being
 * busy, not a fault, so the API answers 503 with Retry-After (clients and
 * proxies back off and retry) rather than a 500 that pages someone.
 */

/** Seconds a client is asked to wait before retrying an overloaded request. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

export class OverloadedError extends CatalogError {
  constructor(options?: ErrorOptions) {
    super("OVERLOADED", 503, "The catalog is busy right now; try again in a moment.", undefined, options, { retryAfterSeconds: OVERLOAD_RETRY_AFTER_SECONDS });
    this.name = "OverloadedError";
  }
}

/** pg-pool's own errors: waiting for a pooled connection, or opening a new one, took longer than the pool allows. */
const POOL_MESSAGES = ["timeout exceeded when trying to connect", "Connection terminated due to connection timeout"];
/**
 * Prisma: P2024 no pooled connection in time; P2028 an interactive
 * transaction could not start in time or expired under load.
 */
const PRISMA_CODES = new Set(["P2024", "P2028"]);
/** PostgreSQL: too_many_connections, cannot_connect_now (starting up or shutting down). */
const POSTGRES_CODES = new Set(["53300", "57P03"]);

/** A property of an unknown value, if it is an object that has it. */
function prop(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined;
}

/** True when `error` (or anything in its cause chain) says the database is saturated. */
export function isOverload(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    if (e instanceof OverloadedError) return true;
    const message = prop(e, "message");
    const code = prop(e, "code");
    if (typeof message === "string" && POOL_MESSAGES.some((m) => message.includes(m))) return true;
    if (typeof code === "string" && (PRISMA_CODES.has(code) || POSTGRES_CODES.has(code))) return true;
    // A driver adapter's error carries PostgreSQL's code as meta.driverAdapterError.cause.originalCode.
    const originalCode = prop(prop(prop(prop(e, "meta"), "driverAdapterError"), "cause"), "originalCode");
    if (typeof originalCode === "string" && POSTGRES_CODES.has(originalCode)) return true;
    e = prop(e, "cause");
  }
  return false;
}

/** `error` as the 503 refusal when it is an overload, else unchanged. */
export function asOverload(error: unknown): unknown {
  return isOverload(error) && !(error instanceof OverloadedError) ? new OverloadedError({ cause: error }) : error;
}
