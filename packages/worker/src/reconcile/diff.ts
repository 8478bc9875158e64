/*
 * Pure diffing of desired against actual cluster state: what the reconciler
 * must do, and nothing more. Kept free of I/O so every rule is unit-tested.
 */
import { dlqTopicOf, topicConfigs } from "@kappa/catalog";
import type { AclBinding, AclOperation, TopicDescription, TopicSpec } from "../kafka/cluster.ts";

/** Product states in which the topic and its grants exist on Kafka. DEPRECATED products still serve their subscribers until retired. */
export const LIVE_PRODUCT_STATUSES = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;
/** Subscription states that hold a grant. */
export const GRANTED_SUBSCRIPTION_STATUSES = ["APPROVED", "ACTIVE"] as const;

export const PRODUCER_TOPIC_OPERATIONS: readonly AclOperation[] = ["WRITE", "DESCRIBE"];
export const PRODUCER_CLUSTER_OPERATIONS: readonly AclOperation[] = ["IDEMPOTENT_WRITE"];
export const CONSUMER_TOPIC_OPERATIONS: readonly AclOperation[] = ["READ", "DESCRIBE"];
export const CONSUMER_GROUP_OPERATIONS: readonly AclOperation[] = ["READ"];

/** The topic configs the catalog sets (topicConfigs); every other key is the operator's. */
export const OWNED_TOPIC_CONFIGS = ["retention.ms", "cleanup.policy", "remote.storage.enable", "local.retention.ms"];

/** Kafka's name for the one CLUSTER resource. */
export const CLUSTER_RESOURCE_NAME = "kafka-cluster";

export interface ProductForTopic {
  topicName: string;
  partitions: number;
  retentionMs: bigint;
  cleanupPolicy: "delete" | "compact";
  tieredStorage: boolean;
  localRetentionMs: bigint;
}

/** The topic a product needs: its partitions and the catalog's configs with Kafka's names. */
export function topicSpecFor(product: ProductForTopic): TopicSpec {
  return { name: product.topicName, partitions: product.partitions, configs: topicConfigs(product) };
}

export interface TopicDiff {
  create: TopicSpec | null;
  /** New partition count when the topic has fewer than the catalog asks for. */
  growPartitionsTo: number | null;
  /** Kafka cannot shrink a topic: reported, never applied. */
  partitionsAboveCatalog: { actual: number; desired: number } | null;
  /** Config keys whose effective value differs from the catalog's, with the catalog's value. */
  setConfigs: Record<string, string>;
  /** What the cluster had for each key in setConfigs (absent key: the cluster reported none). */
  previousConfigs: Record<string, string | null>;
}

/** Kafka reports `cleanup.policy` as a list; "compact,delete" equals "delete,compact". */
function normaliseConfig(key: string, value: string): string {
  const v = value.trim();
  if (key === "cleanup.policy") return v.split(",").map((s) => s.trim()).filter(Boolean).sort().join(",");
  if (v === "true" || v === "false") return v;
  return v;
}

export function diffTopic(desired: TopicSpec, actual: TopicDescription | undefined): TopicDiff {
  if (!actual) return { create: desired, growPartitionsTo: null, partitionsAboveCatalog: null, setConfigs: {}, previousConfigs: {} };
  const setConfigs: Record<string, string> = {};
  const previousConfigs: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(desired.configs)) {
    const current = actual.configs[key];
    if (current === undefined || normaliseConfig(key, current) !== normaliseConfig(key, value)) {
      setConfigs[key] = value;
      previousConfigs[key] = current ?? null;
    }
  }
  return {
    create: null,
    growPartitionsTo: actual.partitions < desired.partitions ? desired.partitions : null,
    partitionsAboveCatalog: actual.partitions > desired.partitions ? { actual: actual.partitions, desired: desired.partitions } : null,
    setConfigs,
    previousConfigs,
  };
}

export function topicDiffIsEmpty(d: TopicDiff): boolean {
  return d.create === null && d.growPartitionsTo === null && Object.keys(d.setConfigs).length === 0;
}

export function aclKey(b: AclBinding): string {
  return [b.principal, b.resourceType, b.patternType, b.resourceName, b.operation, b.permission, b.host].join("\u0000");
}

function allow(principal: string, resourceType: AclBinding["resourceType"], patternType: AclBinding["patternType"], resourceName: string, operation: AclOperation): AclBinding {
  return { principal, resourceType, patternType, resourceName, operation, permission: "ALLOW", host: "*" };
}

/** LITERAL ALLOW bindings of `operations` on each topic. */
export function topicBindings(principal: string, topics: readonly string[], operations: readonly AclOperation[]): AclBinding[] {
  const out: AclBinding[] = [];
  for (const topic of topics) for (const op of operations) out.push(allow(principal, "TOPIC", "LITERAL", topic, op));
  return out;
}

/** A producer's IDEMPOTENT_WRITE on the cluster. */
export function producerClusterBindings(principal: string): AclBinding[] {
  return PRODUCER_CLUSTER_OPERATIONS.map((op) => allow(principal, "CLUSTER", "LITERAL", CLUSTER_RESOURCE_NAME, op));
}

/** A subscriber's READ on its PREFIXED group namespace. */
export function consumerGroupBindings(principal: string, groupPrefix: string): AclBinding[] {
  return CONSUMER_GROUP_OPERATIONS.map((op) => allow(principal, "GROUP", "PREFIXED", groupPrefix, op));
}

/** A producer account: WRITE and DESCRIBE on each live topic of its domain, IDEMPOTENT_WRITE on the cluster while it has any. */
export function producerBindings(principal: string, topics: readonly string[]): AclBinding[] {
  if (topics.length === 0) return [];
  return [...topicBindings(principal, topics, PRODUCER_TOPIC_OPERATIONS), ...producerClusterBindings(principal)];
}

/** A subscriber account: READ and DESCRIBE on each subscribed topic, READ on its PREFIXED group namespace while it has any. */
export function consumerBindings(principal: string, groupPrefix: string, topics: readonly string[]): AclBinding[] {
  if (topics.length === 0) return [];
  return [...topicBindings(principal, topics, CONSUMER_TOPIC_OPERATIONS), ...consumerGroupBindings(principal, groupPrefix)];
}

/** The DLQ readers' operation: the owning domain reads its dead-letter topics through its producer account (issue 29). */
export const DLQ_READ_OPERATIONS: readonly AclOperation[] = ["READ"];

/**
 * A producer account's grants on its domain's dead-letter topics (`<topic>.dlq`
 * of products with a DLQ rule): WRITE and DESCRIBE with the product topics
 * (producerBindings), READ for the owning domain and its group namespace.
 * Nobody else is granted anything on a DLQ: subscriptions name the product topic only.
 */
export function dlqReadBindings(principal: string, groupPrefix: string, dlqTopics: readonly string[]): AclBinding[] {
  if (dlqTopics.length === 0) return [];
  return [...topicBindings(principal, dlqTopics, DLQ_READ_OPERATIONS), ...consumerGroupBindings(principal, groupPrefix)];
}

/** The topics a producer writes: each live product's topic and, with a DLQ rule, its `<topic>.dlq`. */
export function producedTopics(products: readonly { topicName: string; dlq: boolean }[]): { topics: string[]; dlqs: string[] } {
  const dlqs = products.filter((p) => p.dlq).map((p) => dlqTopicOf(p.topicName));
  return { topics: [...products.map((p) => p.topicName), ...dlqs].sort(), dlqs: dlqs.sort() };
}

/** The Prisma selection that tells whether a product has a DLQ rule. */
export const DLQ_RULE_SELECT = { qualityRules: { where: { onFailure: "DLQ" as const }, select: { id: true }, take: 1 } };

/**
 * Which existing bindings the catalog owns and may therefore delete: those of
 * a catalog principal on a catalog topic, on that principal's own group
 * prefix (as a group or transactional-id prefix), or on the cluster. Anything else (an operator's own grants, other
 * principals) is left alone.
 */
export interface Ownership {
  principals: ReadonlySet<string>;
  topics: ReadonlySet<string>;
  groupPrefixOf: ReadonlyMap<string, string>;
}

export function isOwned(b: AclBinding, own: Ownership): boolean {
  if (!own.principals.has(b.principal) || b.permission !== "ALLOW") return false;
  switch (b.resourceType) {
    case "TOPIC":
      return b.patternType === "LITERAL" && own.topics.has(b.resourceName);
    case "GROUP":
      return b.patternType === "PREFIXED" && own.groupPrefixOf.get(b.principal) === b.resourceName;
    case "CLUSTER":
      return b.resourceName === CLUSTER_RESOURCE_NAME && (PRODUCER_CLUSTER_OPERATIONS as readonly string[]).includes(b.operation);
    case "TRANSACTIONAL_ID":
      // The account's own namespace `<account>.` (a derived product's job: its exactly-once sink's transactional ids).
      return b.patternType === "PREFIXED" && own.groupPrefixOf.get(b.principal) === b.resourceName;
    default:
      return false;
  }
}

export interface AclDiff {
  create: AclBinding[];
  delete: AclBinding[];
}

/** Create what is desired and missing; delete what the catalog owns and no longer wants. */
export function diffAcls(desired: readonly AclBinding[], actual: readonly AclBinding[], own: Ownership): AclDiff {
  const want = new Map(desired.map((b) => [aclKey(b), b]));
  const have = new Map(actual.map((b) => [aclKey(b), b]));
  const create = [...want].filter(([k]) => !have.has(k)).map(([, b]) => b);
  const del = [...have].filter(([k, b]) => !want.has(k) && isOwned(b, own)).map(([, b]) => b);
  return { create, delete: del };
}

/** Capped exponential backoff with "equal jitter" (half fixed, half random): spreads the retries of many tasks after an outage. */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // Never less than half the exponential step, so a retry storm cannot collapse to zero delay.
  return Math.round(exp / 2 + random() * (exp / 2));
}
