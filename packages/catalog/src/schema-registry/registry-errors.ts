/**
 * Refusals of the Schema-Registry-compatible API, with Confluent Schema
 * Registry's HTTP statuses and error codes, so its clients react as they do
 * against Confluent (a 404 with 40401 is "no such subject", and so on).
 */
export const REGISTRY_ERRORS = {
  BAD_REQUEST: { status: 400, code: 400 },
  UNAUTHORIZED: { status: 401, code: 401 },
  FORBIDDEN: { status: 403, code: 40301 },
  SUBJECT_NOT_FOUND: { status: 404, code: 40401 },
  VERSION_NOT_FOUND: { status: 404, code: 40402 },
  SCHEMA_NOT_FOUND: { status: 404, code: 40403 },
  INCOMPATIBLE: { status: 409, code: 409 },
  /** A request body over the portal's limit (1 MiB), read no further. */
  PAYLOAD_TOO_LARGE: { status: 413, code: 413 },
  INVALID_SCHEMA: { status: 422, code: 42201 },
  INVALID_VERSION: { status: 422, code: 42202 },
  INVALID_COMPATIBILITY_LEVEL: { status: 422, code: 42203 },
  /** DEK Registry (issue 29): Confluent's codes for a missing key, an existing one, an invalid request. */
  KEY_NOT_FOUND: { status: 404, code: 40470 },
  KEY_EXISTS: { status: 409, code: 40970 },
  INVALID_KEY: { status: 422, code: 42271 },
} as const;

export type RegistryErrorKind = keyof typeof REGISTRY_ERRORS;

export class RegistryError extends Error {
  readonly status: number;
  readonly errorCode: number;

  constructor(kind: RegistryErrorKind, message: string) {
    super(message);
    this.name = "RegistryError";
    this.status = REGISTRY_ERRORS[kind].status;
    this.errorCode = REGISTRY_ERRORS[kind].code;
  }
}
