/**
 * Errors a catalog action may refuse with. Each carries a stable `code` and the
 * HTTP status the API maps it to, so route handlers stay a one-line mapping.
 */
export type FieldErrors = Record<string, string[]>;

export class CatalogError extends Error {
  constructor(
    readonly code: string,
    readonly status: 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503,
    message: string,
    readonly fields?: FieldErrors,
    options?: ErrorOptions,
    /** Extra machine-readable detail the API returns beside code and message (e.g. `policy`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message, options);
    this.name = "CatalogError";
  }
}

export class ValidationError extends CatalogError {
  constructor(message: string, fields?: FieldErrors) {
    super("VALIDATION_FAILED", 400, message, fields);
  }
}

export class UnauthenticatedError extends CatalogError {
  constructor(message = "Sign in to continue.") {
    super("UNAUTHENTICATED", 401, message);
  }
}

export class ForbiddenError extends CatalogError {
  constructor(message: string) {
    super("FORBIDDEN", 403, message);
  }
}

export class NotFoundError extends CatalogError {
  constructor(entity: string, id: string) {
    super("NOT_FOUND", 404, `${entity} ${id} does not exist.`);
  }
}

export class ConflictError extends CatalogError {
  constructor(message: string, code = "CONFLICT", fields?: FieldErrors) {
    super(code, 409, message, fields);
  }
}

export class InvalidTransitionError extends ConflictError {
  constructor(entity: string, from: string, action: string) {
    super(`Cannot ${action} a ${entity} that is ${from}.`, "INVALID_TRANSITION");
  }
}

/** Too many requests of one kind by one user; `details.retryAfterSeconds` says when to come back. */
export class TooManyRequestsError extends CatalogError {
  constructor(message: string, retryAfterSeconds: number) {
    super("RATE_LIMITED", 429, message, undefined, undefined, { retryAfterSeconds });
  }
}

/** A platform part this deployment has not set up (yet), e.g. the message browser's Kafka access. */
export class NotConfiguredError extends CatalogError {
  constructor(message: string) {
    super("NOT_CONFIGURED", 503, message);
  }
}
