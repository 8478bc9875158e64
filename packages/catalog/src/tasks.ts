import type { DataProduct, Prisma, ServiceAccount, Subscription } from "@prisma/client";
import type { Tx } from "./db.ts";
import { consumerGroupPrefix } from "./naming.ts";

/**
 * Provisioning tasks are the outbox between the catalog and Kafka: written in
 * the same transaction as the decision, drained by the worker, each idempotent
 * so a retry or a second worker never double-applies.
 */
export const TASK_KINDS = {
  CREATE_TOPIC: "CREATE_TOPIC",
  ENSURE_SERVICE_ACCOUNT: "ENSURE_SERVICE_ACCOUNT",
  GRANT_PRODUCER_ACL: "GRANT_PRODUCER_ACL",
  GRANT_SUBSCRIPTION_ACL: "GRANT_SUBSCRIPTION_ACL",
  REVOKE_SUBSCRIPTION_ACL: "REVOKE_SUBSCRIPTION_ACL",
  /** Issue a new password for a service account (queued by requestCredentialRotation). */
  ROTATE_CREDENTIALS: "ROTATE_SERVICE_ACCOUNT_CREDENTIALS",
  /**
   * Remove every grant on a product's topic (its producer's and every
   * subscriber's) and delete the topic when WORKER_RETIRED_TOPICS=delete.
   */
  RETIRE_PRODUCT: "RETIRE_PRODUCT",
  /** Move an inactive consumer group's offsets (governed replay; entity: the ReplayRequest). */
  RESET_CONSUMER_GROUP_OFFSETS: "RESET_CONSUMER_GROUP_OFFSETS",
  /** A claimed topic's existing ACL bindings the reviewer chose to remove (exact bindings, payload.bindings). */
  REMOVE_CLAIMED_ACLS: "REMOVE_CLAIMED_ACLS",
  /** Read sample records of an unmanaged topic and infer its schema (TopicSchemaInference; entity: ClusterTopic <name>). */
  INFER_TOPIC_SCHEMA: "INFER_TOPIC_SCHEMA",
  /** Apply the quota class now in force to the account(s) of a product (its producer) or subscription (choose-quota-class.ts). */
  APPLY_QUOTA_CLASS: "APPLY_QUOTA_CLASS",
  /** Send an approved redrive's dead letters back to the product topic, each at most once (issue 29; entity: the RedriveRequest). */
  REDRIVE_DEAD_LETTERS: "REDRIVE_DEAD_LETTERS",
} as const;
export type TaskKind = (typeof TASK_KINDS)[keyof typeof TASK_KINDS];

/** What each step means to a person reading the product page. */
export const TASK_LABELS: Record<TaskKind, string> = {
  CREATE_TOPIC: "Create topic with its configs",
  ENSURE_SERVICE_ACCOUNT: "Create producer service account (SCRAM credentials)",
  GRANT_PRODUCER_ACL: "Grant producer WRITE, DESCRIBE and IDEMPOTENT_WRITE",
  GRANT_SUBSCRIPTION_ACL: "Grant READ on topic and consumer-group prefix",
  REVOKE_SUBSCRIPTION_ACL: "Remove READ on topic and consumer-group prefix",
  ROTATE_SERVICE_ACCOUNT_CREDENTIALS: "Issue new credentials (rotation)",
  RETIRE_PRODUCT: "Retire: remove grants, keep or delete the topic",
  RESET_CONSUMER_GROUP_OFFSETS: "Reset the consumer group's offsets (replay)",
  REMOVE_CLAIMED_ACLS: "Remove the claimed topic's ACLs the reviewer did not keep",
  INFER_TOPIC_SCHEMA: "Read sample records and infer the topic's schema",
  APPLY_QUOTA_CLASS: "Apply the chosen client quota class to the account's Kafka user",
  REDRIVE_DEAD_LETTERS: "Send the approved dead letters back to the product topic (redrive)",
};

/** The label of a stored task kind; a kind this build does not know reads as itself. */
export function taskLabel(kind: string): string {
  return kind in TASK_LABELS ? TASK_LABELS[kind as TaskKind] : kind;
}

/** Kafka's default segment.ms (7 days). */
const SEGMENT_MS_DEFAULT = 604_800_000n;

/** Kafka topic configs for a product, with Kafka's names. */
export function topicConfigs(product: Pick<DataProduct, "retentionMs" | "cleanupPolicy" | "tieredStorage" | "localRetentionMs">): Record<string, string> {
  const configs: Record<string, string> = {
    "retention.ms": product.retentionMs.toString(),
    "cleanup.policy": product.cleanupPolicy,
  };
  if (product.tieredStorage) {
    configs["remote.storage.enable"] = "true";
    configs["local.retention.ms"] = product.localRetentionMs.toString();
    // Only closed segments move to the object store. Kafka closes a segment at
    // segment.bytes (1 GiB) or segment.ms (7 days): a quiet topic would keep a
    // week locally whatever its hot window says, so segments roll within the
    // window itself.
    if (product.localRetentionMs > 0n && product.localRetentionMs < SEGMENT_MS_DEFAULT) configs["segment.ms"] = product.localRetentionMs.toString();
  }
  return configs;
}

export async function enqueueProductProvisioning(tx: Tx, product: DataProduct, producer: ServiceAccount): Promise<void> {
  const principal = `User:${producer.name}`;
  const steps: { kind: TaskKind; payload: Prisma.InputJsonObject }[] = [
    {
      kind: TASK_KINDS.CREATE_TOPIC,
      payload: { topic: product.topicName, partitions: product.partitions, configs: topicConfigs(product) },
    },
    {
      kind: TASK_KINDS.ENSURE_SERVICE_ACCOUNT,
      payload: { serviceAccountId: producer.id, username: producer.name, mechanism: "SCRAM-SHA-512" },
    },
    {
      kind: TASK_KINDS.GRANT_PRODUCER_ACL,
      payload: { principal, topic: product.topicName, operations: ["WRITE", "DESCRIBE"], cluster: ["IDEMPOTENT_WRITE"] },
    },
  ];
  // A claimed topic: after its adoption, the existing grants the reviewer chose to remove.
  const claim = await tx.topicClaim.findUnique({ where: { productId: product.id }, select: { removeAcls: true } });
  if (claim && Array.isArray(claim.removeAcls) && claim.removeAcls.length > 0) {
    steps.push({ kind: TASK_KINDS.REMOVE_CLAIMED_ACLS, payload: { topic: product.topicName, bindings: claim.removeAcls } });
  }
  await tx.provisioningTask.createMany({
    data: steps.map((s, i) => ({ ...s, entityType: "DataProduct", entityId: product.id, step: i + 1 })),
  });
}

function subscriptionAclPayload(subscription: Subscription, topic: string, account: ServiceAccount): Prisma.InputJsonObject {
  return {
    subscriptionId: subscription.id,
    principal: `User:${account.name}`,
    topic,
    topicOperations: ["READ", "DESCRIBE"],
    groupPrefix: consumerGroupPrefix(account.name),
    groupOperations: ["READ"],
  };
}

/*
 * Grant and revoke tasks act on the primary cluster only. A subscription in
 * another environment is granted and revoked by the worker's environment
 * reconciler from the subscription's status, so no task is queued for it
 * (every caller — approval, revocation, recertification, retirement — goes
 * through these two functions).
 */
export async function enqueueSubscriptionGrant(tx: Tx, subscription: Subscription, topic: string, account: ServiceAccount): Promise<void> {
  if (subscription.environment !== null) return;
  await tx.provisioningTask.create({
    data: {
      kind: TASK_KINDS.GRANT_SUBSCRIPTION_ACL,
      payload: subscriptionAclPayload(subscription, topic, account),
      entityType: "Subscription",
      entityId: subscription.id,
      step: 1,
    },
  });
}

export async function enqueueSubscriptionRevoke(tx: Tx, subscription: Subscription, topic: string, account: ServiceAccount): Promise<void> {
  if (subscription.environment !== null) return;
  const last = await tx.provisioningTask.aggregate({
    where: { entityType: "Subscription", entityId: subscription.id },
    _max: { step: true },
  });
  await tx.provisioningTask.create({
    data: {
      kind: TASK_KINDS.REVOKE_SUBSCRIPTION_ACL,
      payload: subscriptionAclPayload(subscription, topic, account),
      entityType: "Subscription",
      entityId: subscription.id,
      step: (last._max.step ?? 0) + 1,
    },
  });
}
