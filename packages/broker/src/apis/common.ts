// Helpers shared by the API handlers.
import { ErrorCode, errorName } from "@kappa/kafka-protocol";
import { KafkaError, type TopicMeta } from "../logs.ts";
import type { RequestContext } from "../registry.ts";
import { AclOperationCode } from "../security/acl/index.ts";
import { CLUSTER_RESOURCE, type AclOperation } from "../session.ts";
import { StorageError } from "../storage/index.ts";

/** Kafka's Topic.validate: legal characters, length, and not "." or "..". */
export function topicNameProblem(name: string): string | null {
  if (name.length === 0) return "Topic name is illegal, it can't be empty";
  if (name === "." || name === "..") return "Topic name cannot be \".\" or \"..\"";
  if (name.length > 249) return `Topic name is illegal, it can't be longer than 249 characters, topic name: ${name}`;
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) {
    return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return null;
}

/** Maps a failure to the error code and message that go into a response; unexpected errors are logged. */
/**
 * Logs a request the broker refused (INVALID_CONFIG, INVALID_REPLICATION_FACTOR,
 * CORRUPT_MESSAGE, …) at INFO with the reason, as Kafka's request handlers log
 * their ApiException reasons, so an operator can see why a client failed.
 * Authorization refusals are not logged here (they would name what a principal
 * probes for; the authorizer's own decisions are the record of those).
 */
export function logRefusal(ctx: RequestContext, what: string, code: number, message: string | null): void {
  if (code === ErrorCode.NONE || code === ErrorCode.TOPIC_AUTHORIZATION_FAILED || code === ErrorCode.CLUSTER_AUTHORIZATION_FAILED) return;
  const s = ctx.session;
  ctx.broker.logger.info(`${what} refused with ${errorName(code)} (${code}): ${message ?? "no message"} (client_id "${s.clientId}", ${s.principal} from ${s.clientAddress})`);
}

export function errorOf(ctx: RequestContext, err: unknown, what: string): { code: number; message: string } {
  if (err instanceof KafkaError || err instanceof StorageError) return { code: err.code, message: err.message };
  ctx.broker.logger.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return { code: ErrorCode.UNKNOWN_SERVER_ERROR, message: err instanceof Error ? err.message : String(err) };
}

/**
 * Returns the topic, creating it first when auto.create.topics.enable is on and the
 * request allows it (Metadata's allow_auto_topic_creation; Kafka creates topics on
 * no other request). Concurrent requests for one new topic wait on a single
 * creation, and their continuations run in arrival order.
 */
export async function topicOrAutoCreate(ctx: RequestContext, name: string, allowAutoCreate: boolean): Promise<TopicMeta | { errorCode: number }> {
  const existing = ctx.broker.logs.topic(name);
  if (existing) return existing;
  if (!allowAutoCreate || !ctx.broker.config["auto.create.topics.enable"]) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  if (topicNameProblem(name) !== null) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION };
  // Auto-creation uses default.replication.factor; above the one broker there is, Kafka cannot create the topic.
  // Kafka's Metadata answers UNKNOWN_TOPIC_OR_PARTITION while it creates a topic, and the creation then fails in
  // the background: the client keeps seeing an unknown topic.
  if (ctx.broker.config["default.replication.factor"] > 1) {
    ctx.broker.logger.info(`auto-creating topic ${name} refused: default.replication.factor ${ctx.broker.config["default.replication.factor"]} exceeds the 1 broker registered`);
    return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  }
  let creating = ctx.broker.autoCreating.get(name);
  if (!creating) {
    creating = ctx.broker.logs
      .createTopic(name, ctx.broker.config["num.partitions"], {})
      .then(
        () => ctx.broker.logger.info(`auto-created topic ${name} with ${ctx.broker.config["num.partitions"]} partition(s)`),
        (err: unknown) => {
          if (!(err instanceof KafkaError && err.code === ErrorCode.TOPIC_ALREADY_EXISTS)) {
            ctx.broker.logger.warn(`auto-creating topic ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        },
      )
      .finally(() => ctx.broker.autoCreating.delete(name));
    ctx.broker.autoCreating.set(name, creating);
  }
  await creating;
  return ctx.broker.logs.topic(name) ?? { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
}

export const THROTTLE_NONE = 0;

/** Kafka's "not requested" value for authorized-operations fields (Integer.MIN_VALUE). */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** Operations Kafka reports per resource type in authorized-operations bitfields (AclEntry.supportedOperations). */
const SUPPORTED_OPERATIONS: Record<"TOPIC" | "GROUP" | "CLUSTER", readonly AclOperation[]> = {
  TOPIC: ["READ", "WRITE", "CREATE", "DESCRIBE", "DELETE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"],
  GROUP: ["READ", "DESCRIBE", "DELETE"],
  CLUSTER: ["CREATE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "ALTER", "DESCRIBE"],
};

/** KIP-430 bitfield: bit `code` set for each supported operation the session may perform on `resource`. */
export function authorizedOperations(ctx: RequestContext, type: "TOPIC" | "GROUP" | "CLUSTER", name: string): number {
  let bits = 0;
  for (const op of SUPPORTED_OPERATIONS[type]) {
    if (ctx.broker.authorizer.authorize(ctx.session, op, { type, name })) bits |= 1 << AclOperationCode[op];
  }
  return bits;
}

/** Auto-creating a topic (Metadata) needs CREATE on the CLUSTER or on the TOPIC (KafkaApis.handleTopicMetadataRequest). */
export function mayAutoCreate(ctx: RequestContext, topic: string): boolean {
  const a = ctx.broker.authorizer;
  return a.authorize(ctx.session, "CREATE", CLUSTER_RESOURCE) || a.authorize(ctx.session, "CREATE", { type: "TOPIC", name: topic });
}
