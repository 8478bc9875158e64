/*
 * Provisioning at scale, checked as a user would see it (issue 28): products
 * and subscriptions queued through the catalog's own actions, then — once the
 * worker says it is done — every product ACTIVE, every subscription ACTIVE,
 * every task DONE exactly once per step, and on the cluster every topic with
 * its partitions, replication factor and configs, every principal with
 * exactly the bindings the catalog grants, and the issued credentials
 * producing and consuming. Shared by the broker-kill trials
 * (producer-failover.integration.test.ts) and the two-worker test
 * (scale-out.integration.test.ts).
 */
import { randomBytes } from "node:crypto";
import kafkajs, { type Kafka } from "kafkajs";
import { revealCredentialOnce, type Db } from "@kappa/catalog";
import { approvedProduct, approvedSubscription, SECRETS_KEY, connectFresh, waitFor, type seedPeople } from "./helpers.ts";

const { Kafka: KafkaClient, logLevel, AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, ResourcePatternTypes } = kafkajs;

type People = Awaited<ReturnType<typeof seedPeople>>;

export interface QueuedProduct {
  id: string;
  topicName: string;
  partitions: number;
  /** The configs the catalog asks for (tasks.ts topicConfigs). */
  configs: Record<string, string>;
}

export interface QueuedSubscription {
  id: string;
  productId: string;
  topicName: string;
  account: { id: string; name: string };
}

export interface QueuedBatch {
  products: QueuedProduct[];
  subscriptions: QueuedSubscription[];
}

/**
 * Registers, submits and approves `count` products (1–3 partitions; every
 * third compacted, every fourth tiered with a one-hour local window) and one
 * approved subscription of its own payments account to each: what 50 teams
 * publishing and subscribing at once leave in the outbox. Each is added to
 * `batch` as soon as it is queued, so a caller can watch the worker while
 * the rest are still being queued.
 */
export async function queueProducts(db: Db, people: People, count: number, label: string, batch: QueuedBatch = { products: [], subscriptions: [] }, parallel = 3): Promise<QueuedBatch> {
  const stamp = randomBytes(3).toString("hex");
  const queueOne = async (i: number) => {
    const partitions = 1 + (i % 3);
    const tiered = i % 4 === 3;
    const compacted = !tiered && i % 3 === 2;
    const retentionMs = compacted ? -1 : (1 + (i % 5)) * 24 * 3600_000;
    const product = await approvedProduct(db, people, {
      name: `${label} ${stamp} ${i}`,
      partitions,
      ...(compacted ? { cleanupPolicy: "compact", keyFields: ["id"] } : { cleanupPolicy: "delete", retentionMs }),
      ...(tiered ? { tieredStorage: true, localRetentionMs: 3600_000 } : {}),
    });
    const configs: Record<string, string> = { "cleanup.policy": compacted ? "compact" : "delete", "retention.ms": String(retentionMs) };
    if (tiered) Object.assign(configs, { "remote.storage.enable": "true", "local.retention.ms": "3600000", "segment.ms": "3600000" });
    batch.products.push({ id: product.id, topicName: product.topicName, partitions, configs });
    const { account, subscription } = await approvedSubscription(db, people, product.id, `${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${stamp}-${i}`);
    batch.subscriptions.push({ id: subscription.id, productId: product.id, topicName: product.topicName, account: { id: account.id, name: account.name } });
  };
  // A few teams at once, as in the portal.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      for (let i = next++; i < count; i = next++) await queueOne(i);
    }),
  );
  return batch;
}

/** Tasks queued for these entities, and how many are DONE. */
export async function taskProgress(db: Db, batch: QueuedBatch): Promise<{ total: number; done: number; open: number; failed: string[] }> {
  const ids = [...batch.products.map((p) => p.id), ...batch.subscriptions.map((s) => s.id)];
  const tasks = await db.provisioningTask.findMany({ where: { entityId: { in: ids } }, select: { status: true, kind: true, entityId: true, lastError: true } });
  return {
    total: tasks.length,
    done: tasks.filter((t) => t.status === "DONE").length,
    open: tasks.filter((t) => t.status === "PENDING" || t.status === "RUNNING").length,
    failed: tasks.filter((t) => t.status === "FAILED").map((t) => `${t.kind} ${t.entityId}: ${t.lastError ?? ""}`),
  };
}

/** Waits until every task of the batch is DONE; fails at once, with the errors, when one is FAILED (final until retryTask). */
export async function waitConverged(db: Db, batch: QueuedBatch, nominalMs: number): Promise<void> {
  let failed: string[] = [];
  await waitFor(
    async () => {
      const p = await taskProgress(db, batch);
      failed = p.failed;
      return failed.length > 0 || (p.total > 0 && p.done === p.total);
    },
    nominalMs,
    "every provisioning task of the batch to be DONE",
  );
  if (failed.length > 0) throw new Error(`provisioning tasks FAILED: ${failed.join("; ")}`);
}

export interface CatalogState {
  productStatuses: string[];
  subscriptionStatuses: string[];
  /** Tasks per entity, by kind and status (a duplicated or missing step shows here). */
  tasks: Record<string, number>;
  /** Tasks whose attempts exceed 1 (retried); informative. */
  retried: number;
  /** Audit events of status moves, per entity: each must be exactly 1. */
  activatedOnce: { products: number; subscriptions: number };
}

/** What the product and subscription pages show for the batch. */
export async function catalogState(db: Db, batch: QueuedBatch): Promise<CatalogState> {
  const productIds = batch.products.map((p) => p.id);
  const subscriptionIds = batch.subscriptions.map((s) => s.id);
  const products = await db.dataProduct.findMany({ where: { id: { in: productIds } }, select: { status: true } });
  const subs = await db.subscription.findMany({ where: { id: { in: subscriptionIds } }, select: { status: true } });
  const tasks = await db.provisioningTask.findMany({ where: { entityId: { in: [...productIds, ...subscriptionIds] } }, select: { kind: true, status: true, attempts: true, entityId: true } });
  const byKind: Record<string, number> = {};
  for (const t of tasks) byKind[`${t.kind} ${t.status}`] = (byKind[`${t.kind} ${t.status}`] ?? 0) + 1;
  const activated = await db.auditEvent.groupBy({ by: ["entityId", "action"], where: { entityId: { in: [...productIds, ...subscriptionIds] }, action: { in: ["product.activated", "subscription.activated"] } }, _count: true });
  const once = (action: string) => activated.filter((a) => a.action === action && a._count === 1).length;
  return {
    productStatuses: [...new Set(products.map((p) => p.status))],
    subscriptionStatuses: [...new Set(subs.map((s) => s.status))],
    tasks: byKind,
    retried: tasks.filter((t) => t.attempts > 1).length,
    activatedOnce: { products: once("product.activated"), subscriptions: once("subscription.activated") },
  };
}

/** The catalog state a converged batch must show. */
export function expectedCatalogState(batch: QueuedBatch): Omit<CatalogState, "retried"> {
  const n = batch.products.length;
  return {
    productStatuses: ["ACTIVE"],
    subscriptionStatuses: ["ACTIVE"],
    tasks: { "CREATE_TOPIC DONE": n, "ENSURE_SERVICE_ACCOUNT DONE": n, "GRANT_PRODUCER_ACL DONE": n, "GRANT_SUBSCRIPTION_ACL DONE": batch.subscriptions.length },
    activatedOnce: { products: n, subscriptions: batch.subscriptions.length },
  };
}

export interface ClusterState {
  /** Topic → "partitions/rf configs…" as found. */
  topics: Record<string, string>;
  /** Principal → its bindings, sorted. */
  acls: Record<string, string[]>;
}

function topicLine(partitions: number, rf: number, configs: Record<string, string>): string {
  return `${partitions}p rf${rf} ${Object.entries(configs).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(" ")}`;
}

/** What the batch must have left on the cluster: topics with partitions, replication factor and configs; exactly the catalog's bindings per principal. */
export function expectedClusterState(batch: QueuedBatch, producer: string, replicationFactor: number): ClusterState {
  const topics: Record<string, string> = {};
  for (const p of batch.products) topics[p.topicName] = topicLine(p.partitions, replicationFactor, p.configs);
  const acls: Record<string, string[]> = {};
  acls[`User:${producer}`] = [
    "ALLOW IDEMPOTENT_WRITE CLUSTER:LITERAL:kafka-cluster",
    ...batch.products.flatMap((p) => [`ALLOW DESCRIBE TOPIC:LITERAL:${p.topicName}`, `ALLOW WRITE TOPIC:LITERAL:${p.topicName}`]),
  ].sort();
  for (const s of batch.subscriptions) {
    acls[`User:${s.account.name}`] = [`ALLOW DESCRIBE TOPIC:LITERAL:${s.topicName}`, `ALLOW READ GROUP:PREFIXED:${s.account.name}.`, `ALLOW READ TOPIC:LITERAL:${s.topicName}`].sort();
  }
  return { topics, acls };
}

/** kafkajs' numeric ACL enums by name. */
const nameOf = <T extends Record<string, string | number>>(e: T) => new Map(Object.entries(e).map(([k, v]) => [v, k]));
const RESOURCE = nameOf(AclResourceTypes);
const PATTERN = nameOf(ResourcePatternTypes);
const OPERATION = nameOf(AclOperationTypes);
const PERMISSION = nameOf(AclPermissionTypes);

/**
 * What the cluster holds for the batch, read with a kafkajs admin client —
 * not the worker's own connections and request code: partitions and
 * replicas from Metadata, the catalog's config keys from DescribeConfigs,
 * each principal's bindings from DescribeAcls.
 */
export async function clusterState(admin: Kafka, batch: QueuedBatch, producer: string): Promise<ClusterState> {
  const client = admin.admin();
  await client.connect();
  try {
    const names = batch.products.map((p) => p.topicName);
    const existing = new Set(await client.listTopics());
    const present = names.filter((n) => existing.has(n));
    const meta = present.length > 0 ? (await client.fetchTopicMetadata({ topics: present })).topics : [];
    const keys = ["cleanup.policy", "retention.ms", "remote.storage.enable", "local.retention.ms", "segment.ms"];
    const described = present.length > 0 ? (await client.describeConfigs({ includeSynonyms: false, resources: present.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: keys })) })).resources : [];
    const topics: Record<string, string> = {};
    for (const p of batch.products) {
      const t = meta.find((m) => m.name === p.topicName);
      if (!t) {
        topics[p.topicName] = "missing";
        continue;
      }
      const rfs = [...new Set(t.partitions.map((x) => x.replicas.length))];
      const found: Record<string, string> = {};
      for (const e of described.find((r) => r.resourceName === p.topicName)?.configEntries ?? []) if (e.configValue !== null) found[e.configName] = e.configValue;
      const shown: Record<string, string> = {};
      // The catalog's keys, plus remote.storage.enable wherever the cluster says it is on.
      for (const k of new Set([...Object.keys(p.configs), ...(found["remote.storage.enable"] === "true" ? ["remote.storage.enable"] : [])])) shown[k] = found[k] ?? "(unset)";
      topics[p.topicName] = topicLine(t.partitions.length, rfs.length === 1 ? rfs[0]! : -1, shown);
    }
    const acls: Record<string, string[]> = {};
    for (const principal of [`User:${producer}`, ...batch.subscriptions.map((s) => `User:${s.account.name}`)]) {
      const res = await client.describeAcls({ principal, resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY });
      acls[principal] = res.resources.flatMap((r) => r.acls.map((a) => `${PERMISSION.get(a.permissionType)} ${OPERATION.get(a.operation)} ${RESOURCE.get(r.resourceType)}:${PATTERN.get(r.resourcePatternType)}:${r.resourceName}`)).sort();
    }
    return { topics, acls };
  } finally {
    await client.disconnect();
  }
}

/** A kafkajs client for these SCRAM-SHA-512 credentials. */
export function clientAs(brokers: string[], creds: { username: string; password: string }): Kafka {
  return new KafkaClient({
    clientId: "kappa-provisioning-check",
    brokers,
    sasl: { mechanism: "scram-sha-512", username: creds.username, password: creds.password },
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    requestTimeout: 30_000,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
}

/** The producer's password, shown once to an owner of its domain. */
export async function revealProducer(db: Db, people: People): Promise<{ username: string; password: string }> {
  const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
  const creds = await revealCredentialOnce(db, SECRETS_KEY, people.as.ordersOwner, producer.id);
  return { username: creds.username, password: creds.password };
}

/**
 * Writes `count` records (`<tag>-<i>`, acks=all, idempotent) to every topic
 * of the batch with the producer's issued credentials. Apache Kafka's brokers
 * learn new credentials and ACLs a moment after the controller commits them,
 * so the first write to each topic is waited for.
 */
export async function produceTo(brokers: string[], creds: { username: string; password: string }, topics: string[], tag: string, count: number): Promise<void> {
  const producer = await connectFresh(() => clientAs(brokers, creds).producer({ idempotent: true, allowAutoTopicCreation: false }), 10_000, `${creds.username} to log in`);
  try {
    for (const topic of topics) {
      const messages = Array.from({ length: count }, (_, i) => ({ key: String(i), value: `${tag}-${i}` }));
      await waitFor(async () => (await producer.send({ topic, acks: -1, messages })).length > 0, 10_000, `the producer's write to ${topic}`);
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * Each subscriber reveals its password (as its owner does, once) and reads
 * its topic from the beginning in a group under its prefix; answers the
 * values each read, per subscription, once `expectedOf(s)` of them arrived
 * (recordCounts says whether the log holds more).
 */
export async function consumeAsSubscribers(db: Db, people: People, brokers: string[], subs: QueuedSubscription[], expectedOf: (s: QueuedSubscription) => number, parallel = 6): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const queue = [...subs];
  const readOne = async (s: QueuedSubscription) => {
    const expected = expectedOf(s);
    const creds = await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, s.account.id);
    // By partition and offset: a consumer group delivers at least once, and kafkajs, restarting after a retriable crash
    // (a coordinator still loading after a node's restart), reads again from the last committed offset — the same
    // record twice is a redelivery, not a second copy in the log (recordCounts checks the log).
    const values = new Map<string, string>();
    // A crash kafkajs does not restart from (an authorization error, say) ends the wait; a retriable one (a coordinator still
    // loading after a node's restart) it restarts from by itself.
    let crashed: Error | null = null;
    const consumer = await connectFresh(
      () => {
        const c = clientAs(brokers, creds).consumer({ groupId: `${s.account.name}.check`, maxWaitTimeInMs: 200, allowAutoTopicCreation: false, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
        c.on(c.events.CRASH, (e) => {
          if (!e.payload.restart) crashed = e.payload.error;
        });
        return c;
      },
      10_000,
      `${s.account.name} to log in`,
    );
    try {
      await consumer.subscribe({ topic: s.topicName, fromBeginning: true });
      await consumer.run({ autoCommit: true, eachMessage: async ({ partition, message }) => void values.set(`${partition}:${message.offset}`, message.value?.toString() ?? "") });
      await waitFor(() => {
        if (values.size >= expected) return true;
        if (crashed) throw crashed;
        return false;
      }, 15_000, `${s.account.name} to read ${expected} records of ${s.topicName}`);
    } finally {
      await consumer.disconnect();
    }
    out.set(s.id, [...values.values()].sort());
  };
  await Promise.all(
    Array.from({ length: Math.min(parallel, subs.length) }, async () => {
      for (let s = queue.shift(); s; s = queue.shift()) await readOne(s);
    }),
  );
  return out;
}

/**
 * Retries what kafkajs says a retry can help (its error's `retriable`: a
 * partition's leader moved, a coordinator still loading), as Kafka's own
 * clients do — right after a node's restart, leadership moves back to the
 * preferred replicas. Anything else, or a retriable error past the deadline, throws.
 */
async function retryingRetriable<T>(fn: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if ((error as { retriable?: unknown }).retriable !== true || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Records in each topic's log (end − start offset, summed over partitions): a duplicate write shows as one more. */
export async function recordCounts(admin: Kafka, topics: string[]): Promise<Record<string, number>> {
  const client = admin.admin();
  await client.connect();
  try {
    const out: Record<string, number> = {};
    for (const topic of topics) out[topic] = (await retryingRetriable(() => client.fetchTopicOffsets(topic))).reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
    return out;
  } finally {
    await client.disconnect();
  }
}
