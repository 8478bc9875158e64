import { ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";

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

/**
 * Kafka answered SECURITY_DISABLED: the cluster runs without an authorizer,
 * so ACL requests cannot succeed until `authorizer.class.name` is set on its
 * brokers. Retrying with backoff would only delay the error an operator
 * must act on. kafkajs reports it by `type`, the raw client by `code`.
 */
export function isSecurityDisabled(error: unknown): boolean {
  if (error instanceof KafkaProtocolError) return error.code === ErrorCode.SECURITY_DISABLED;
  return typeof error === "object" && error !== null && "type" in error && error.type === "SECURITY_DISABLED";
}

/**
 * Kafka refused a topic config because its brokers run without tiered
 * storage (INVALID_CONFIG "Tiered Storage functionality is disabled in the
 * broker", remote.log.storage.system.enable=false). Retrying cannot help until
 * the product or the cluster changes.
 */
export function isTieredStorageDisabled(error: unknown): boolean {
  const code = error instanceof KafkaProtocolError ? error.code : null;
  const text = error instanceof Error ? error.message : String(error);
  return (code === null || code === ErrorCode.INVALID_CONFIG) && /tiered storage functionality is disabled/i.test(text);
}

export const TIERED_STORAGE_DISABLED_HINT =
  "This environment has no tiered storage (its brokers run with remote.log.storage.system.enable=false), so the topic cannot be created with remote.storage.enable=true: turn tiered storage off for the product, or enable it on the cluster, then retry the task.";

export const SECURITY_DISABLED_HINT =
  "The cluster has no authorizer (Kafka answered SECURITY_DISABLED), so ACLs cannot be set; configure authorizer.class.name on its brokers, then retry the task.";
