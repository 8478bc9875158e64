/** The task can never succeed as written (unknown kind, malformed payload): fail it now instead of retrying. */
export class NonRetryableError extends Error {
  override name = "NonRetryableError";
}

/**
 * The worker refuses to alter a principal it does not own: one that is not a
 * catalog service account in its domain's namespace, or one that is reserved
 * (the worker's own admin user, a super user, ANONYMOUS, the platform prefix).
 * Retrying cannot help; a person must rename or remove the account.
 */
export class PrincipalNotOwnedError extends NonRetryableError {
  override name = "PrincipalNotOwnedError";
}
