import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { primaryEnvironment } from "../environments/clusters.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { consumerGroupPrefix } from "../naming.ts";
import { estimateOffsetTime, parseGroupAssignment, parsePartitionLag, parsePartitionOffsets, replayWindow, type OffsetSample } from "../observations/figures.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { TASK_KINDS, taskLabel } from "../tasks.ts";

/*
 * Read queries over what the worker records (observations, tasks, reconcile
 * runs), for the portal's product, subscription and platform pages. As with
 * getProduct, the permission check is part of the query, never left to the page.
 */

/** How far back the charts look. The worker keeps more (WORKER_HISTORY_HOURS); the charts stay readable. */
export const CHART_WINDOW_MS = 3 * 3600_000;
const UNPUBLISHED = ["DRAFT", "IN_REVIEW", "REJECTED"];

async function timeOf(db: Db, topic: string, offset: number | null) {
  if (offset === null) return estimateOffsetTime(null, null, null);
  const [oldest, firstPast] = await Promise.all([
    db.topicObservationSample.findFirst({ where: { topic }, orderBy: { bucket: "asc" }, select: { bucket: true, endOffset: true } }),
    db.topicObservationSample.findFirst({ where: { topic, endOffset: { gt: BigInt(offset) } }, orderBy: { bucket: "asc" }, select: { bucket: true, endOffset: true } }),
  ]);
  const sample = (s: { bucket: Date; endOffset: bigint } | null): OffsetSample | null => (s ? { bucket: s.bucket.toISOString(), endOffset: Number(s.endOffset) } : null);
  return estimateOffsetTime(offset, sample(oldest), sample(firstPast));
}

function lagGroup(g: {
  groupId: string;
  subscriptionId: string | null;
  state: string;
  members: number;
  totalLag: bigint;
  timeLagMs: bigint | null;
  partitionDetail: unknown;
  observedAt: Date;
}) {
  return {
    groupId: g.groupId,
    subscriptionId: g.subscriptionId,
    state: g.state,
    members: g.members,
    totalLag: Number(g.totalLag),
    timeLagMs: g.timeLagMs === null ? null : Number(g.timeLagMs),
    partitions: parsePartitionLag(g.partitionDetail),
    /** Which member holds which partitions (both group protocols); empty when no member holds any. */
    assignment: parseGroupAssignment(g.partitionDetail),
    observedAt: g.observedAt.toISOString(),
  };
}

/**
 * Whether an issued password waits for its one-time pickup, was picked up, or
 * was never issued, and any rotation in flight. Asks only whether a sealed
 * password exists, never for the column itself.
 */
async function credentialState(db: Db, actor: Actor, account: { id: string; domainId: string; secretIssuedAt: Date | null; isProducer: boolean }) {
  const canManage = canInDomain(actor, "serviceAccount:create", account.domainId);
  const [waiting, rotation, cutOff] = await Promise.all([
    db.serviceAccount.count({ where: { id: account.id, secretCiphertext: { not: null } } }),
    db.provisioningTask.findFirst({
      where: { entityType: "ServiceAccount", entityId: account.id, kind: TASK_KINDS.ROTATE_CREDENTIALS, status: { in: ["PENDING", "RUNNING", "FAILED"] } },
      orderBy: { createdAt: "desc" },
      select: { id: true, status: true, lastError: true, createdAt: true },
    }),
    canManage ? rotationImpact(db, account) : null,
  ]);
  return {
    /** "waiting": issued and not yet picked up; "shown": picked up once; "not-issued": the worker has not issued any yet. */
    state: waiting > 0 ? ("waiting" as const) : account.secretIssuedAt ? ("shown" as const) : ("not-issued" as const),
    issuedAt: account.secretIssuedAt?.toISOString() ?? null,
    canManage,
    rotation: rotation && { id: rotation.id, status: rotation.status, lastError: rotation.lastError, requestedAt: rotation.createdAt.toISOString() },
    /** For the owner's confirmation before a rotation: every client of this principal stops authenticating. */
    cutOff,
  };
}

/**
 * Who a rotation cuts off: everything that authenticates as the account —
 * producers writing the domain's live topics, consumers of its granted
 * subscriptions, and the consumer groups the worker last saw with members.
 */
async function rotationImpact(db: Db, account: { id: string; domainId: string; isProducer: boolean }) {
  const [writes, reads, groups] = await Promise.all([
    account.isProducer
      ? db.dataProduct.findMany({ where: { domainId: account.domainId, status: { in: ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] } }, select: { topicName: true }, orderBy: { topicName: "asc" } })
      : [],
    db.subscription.findMany({ where: { serviceAccountId: account.id, status: { in: ["APPROVED", "ACTIVE"] } }, select: { product: { select: { name: true, topicName: true } } } }),
    db.consumerGroupObservation.findMany({ where: { serviceAccountId: account.id, members: { gt: 0 } }, select: { groupId: true, members: true }, orderBy: { groupId: "asc" } }),
  ]);
  return {
    writes: writes.map((p) => p.topicName),
    reads: reads.map((s) => ({ product: s.product.name, topic: s.product.topicName })).sort((a, b) => a.topic.localeCompare(b.topic)),
    activeGroups: groups,
  };
}

/**
 * The live figures of a product's topic: tiered storage, replay window,
 * throughput history and consumer lag. Anyone who may read the product sees
 * the topic figures; lag is shown to the product's owners and governance for
 * every subscriber, to anyone else only for their own domains' subscriptions.
 */
export async function productObservations(db: Db, actor: Actor, productId: string, bootstrap: string, now = Date.now()) {
  const product = await db.dataProduct.findUnique({
    where: { id: productId },
    select: { id: true, domainId: true, status: true, topicName: true, tieredStorage: true, localRetentionMs: true, retentionMs: true, domain: { select: { slug: true } } },
  });
  if (!product) throw new NotFoundError("Data product", productId);
  const inDomain = actor.memberships.some((m) => m.domainId === product.domainId);
  if (UNPUBLISHED.includes(product.status) && !inDomain && !hasGlobal(actor, "product:review")) throw new NotFoundError("Data product", productId);
  const seesAllLag = canInDomain(actor, "product:update", product.domainId) || hasGlobal(actor, "product:review");
  const myDomainIds = actor.memberships.map((m) => m.domainId);
  const since = new Date(now - CHART_WINDOW_MS);

  const subscriptions = await db.subscription.findMany({
    where: { productId, ...(seesAllLag ? {} : { consumingDomainId: { in: myDomainIds } }) },
    select: { id: true, status: true, consumingDomain: { select: { name: true } }, serviceAccount: { select: { name: true } } },
  });
  const [topic, samples, groups] = await Promise.all([
    db.topicObservation.findUnique({ where: { topic: product.topicName } }),
    db.topicObservationSample.findMany({ where: { topic: product.topicName, bucket: { gte: since } }, orderBy: { bucket: "asc" }, select: { bucket: true, messagesPerSecond: true } }),
    db.consumerGroupObservation.findMany({
      where: { topic: product.topicName, subscriptionId: { in: subscriptions.map((s) => s.id) } },
      orderBy: { groupId: "asc" },
    }),
  ]);
  const lagSamples = groups.length
    ? await db.consumerGroupObservationSample.findMany({
        where: { topic: product.topicName, groupId: { in: groups.map((g) => g.groupId) }, bucket: { gte: since } },
        orderBy: { bucket: "asc" },
        select: { groupId: true, bucket: true, totalLag: true },
      })
    : [];

  let replay = null;
  if (topic) {
    const earliestLocal = topic.earliestLocalOffset === null ? null : Number(topic.earliestLocalOffset);
    const [from, localFrom] = await Promise.all([timeOf(db, topic.topic, Number(topic.earliestOffset)), timeOf(db, topic.topic, earliestLocal)]);
    replay = replayWindow(parsePartitionOffsets(topic.partitionDetail), { from, localFrom });
  }
  const subById = new Map(subscriptions.map((s) => [s.id, s]));
  // The producer's credentials are for the owners only (the account of their domain that writes this topic).
  const producerAccount = canInDomain(actor, "serviceAccount:create", product.domainId)
    ? await db.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true }, select: { id: true, name: true, domainId: true, secretIssuedAt: true, isProducer: true } })
    : null;
  const producer = producerAccount && producerAccount.domainId === product.domainId
    ? {
        serviceAccount: { id: producerAccount.id, name: producerAccount.name },
        credentials: await credentialState(db, actor, producerAccount),
        connection: { bootstrap, mechanism: "SCRAM-SHA-512" as const, username: producerAccount.name, topic: product.topicName },
      }
    : null;
  return {
    productId: product.id,
    topicName: product.topicName,
    tieredStorage: { enabled: product.tieredStorage, localRetentionMs: Number(product.localRetentionMs), retentionMs: Number(product.retentionMs) },
    /** null: the worker has not observed this topic (yet). */
    topic: topic && {
      partitions: topic.partitions,
      endOffset: Number(topic.endOffset),
      earliestOffset: Number(topic.earliestOffset),
      earliestLocalOffset: topic.earliestLocalOffset === null ? null : Number(topic.earliestLocalOffset),
      latestTieredOffset: topic.latestTieredOffset === null ? null : Number(topic.latestTieredOffset),
      localBytes: topic.localBytes === null ? null : Number(topic.localBytes),
      remoteBytes: topic.remoteBytes === null ? null : Number(topic.remoteBytes),
      messagesPerSecond: topic.messagesPerSecond,
      observedAt: topic.observedAt.toISOString(),
    },
    replay,
    throughput: samples.map((s) => ({ bucket: s.bucket.toISOString(), messagesPerSecond: s.messagesPerSecond })),
    seesAllLag,
    consumers: groups.map((g) => {
      const s = g.subscriptionId ? subById.get(g.subscriptionId) : undefined;
      return { ...lagGroup(g), domainName: s?.consumingDomain.name ?? null, account: s?.serviceAccount.name ?? null };
    }),
    lagSamples: lagSamples.map((s) => ({ groupId: s.groupId, bucket: s.bucket.toISOString(), totalLag: Number(s.totalLag) })),
    /** For the product's owners: the producer account and its credential state; null for everyone else. */
    producer,
  };
}

/**
 * One subscription as its consumer sees it: status, provisioning, the account's
 * credential state, connection settings and lag. Readable by the product's
 * owners, members of the subscribing domain and governance.
 */
export async function subscriptionDetail(db: Db, actor: Actor, subscriptionId: string, bootstrap: string, now = Date.now()) {
  const sub = await db.subscription.findUnique({
    where: { id: subscriptionId },
    include: {
      product: { select: { id: true, name: true, topicName: true, domainId: true, status: true, sunsetAt: true, classification: true, domain: { select: { name: true } } } },
      consumingDomain: { select: { id: true, name: true, slug: true } },
      serviceAccount: { select: { id: true, name: true, domainId: true, secretIssuedAt: true, isProducer: true } },
    },
  });
  if (!sub) throw new NotFoundError("Subscription", subscriptionId);
  const isProductOwner = canInDomain(actor, "product:update", sub.product.domainId);
  const isConsumer = actor.memberships.some((m) => m.domainId === sub.consumingDomainId);
  if (!isProductOwner && !isConsumer && !hasGlobal(actor, "product:review")) {
    throw new ForbiddenError("Only the product's owners, members of the subscribing domain and governance can see this subscription.");
  }
  const account = sub.serviceAccount;
  const prefix = consumerGroupPrefix(account.name);
  const since = new Date(now - CHART_WINDOW_MS);
  const waitingOnCluster = sub.environment !== null && sub.status === "APPROVED";
  const [credentials, tasks, groups, lagSamples, primary, cluster, unsealed] = await Promise.all([
    credentialState(db, actor, account),
    db.provisioningTask.findMany({ where: { entityType: "Subscription", entityId: sub.id }, orderBy: [{ step: "asc" }, { createdAt: "asc" }] }),
    db.consumerGroupObservation.findMany({ where: { subscriptionId: sub.id }, orderBy: { groupId: "asc" } }),
    db.consumerGroupObservationSample.findMany({
      where: { topic: sub.product.topicName, groupId: { startsWith: prefix }, bucket: { gte: since } },
      orderBy: { bucket: "asc" },
      select: { groupId: true, bucket: true, totalLag: true },
    }),
    primaryEnvironment(db),
    // Access in another environment is read from that cluster.
    sub.environment === null ? null : db.cluster.findUnique({ where: { environment: sub.environment }, select: { bootstrap: true } }),
    // Credentials issued before they were sealed for other environments cannot be carried there (the worker refuses them until a rotation).
    waitingOnCluster ? db.serviceAccount.count({ where: { id: account.id, secretHash: { not: null }, OR: [{ scramSealed: null }, { secretIssuedAt: null }] } }) : 0,
  ]);
  return {
    id: sub.id,
    status: sub.status,
    environment: sub.environment ?? primary,
    primaryEnvironment: sub.environment === null,
    purpose: sub.purpose,
    reason: sub.reason,
    pii: { requested: sub.piiRequested, justification: sub.piiJustification, approvedAt: sub.piiApprovedAt?.toISOString() ?? null, canApprove: sub.piiRequested && !sub.piiApprovedAt && hasGlobal(actor, "subscription:decide") && sub.requestedById !== actor.id },
    createdAt: sub.createdAt.toISOString(),
    decidedAt: sub.decidedAt?.toISOString() ?? null,
    expiresAt: sub.expiresAt?.toISOString() ?? null,
    certifiedAt: sub.certifiedAt?.toISOString() ?? null,
    product: { id: sub.product.id, name: sub.product.name, topicName: sub.product.topicName, status: sub.product.status, sunsetAt: sub.product.sunsetAt?.toISOString() ?? null, domainName: sub.product.domain.name },
    consumingDomain: sub.consumingDomain,
    serviceAccount: { id: account.id, name: account.name },
    credentials,
    connection: { bootstrap: cluster?.bootstrap ?? bootstrap, mechanism: "SCRAM-SHA-512" as const, username: account.name, topic: sub.product.topicName, groupPrefix: prefix },
    provisioning: tasks.map((t) => ({ id: t.id, step: t.step, kind: t.kind, label: taskLabel(t.kind), status: t.status, attempts: t.attempts, lastError: t.lastError, updatedAt: t.updatedAt.toISOString() })),
    /**
     * Approved in another environment and not ACTIVE yet: the worker's environment reconciler grants it on that
     * cluster once the account's credential is there. `needsRotation`: the account's credentials were issued before
     * they could be carried to other environments, so it stays APPROVED until they are rotated once.
     */
    environmentWait: waitingOnCluster ? { environment: sub.environment as string, needsRotation: unsealed > 0 } : null,
    viewer: {
      isProductOwner,
      isConsumer,
      ...accessDecisions(actor, sub),
      canSetExpiry: hasGlobal(actor, "product:review") || canInDomain(actor, "subscription:decide", sub.product.domainId), canRetry: isProductOwner || canInDomain(actor, "product:update", sub.consumingDomainId) || hasGlobal(actor, "platform:admin") || hasGlobal(actor, "product:review"),
    },
    consumers: groups.map(lagGroup),
    lagSamples: lagSamples.map((s) => ({ groupId: s.groupId, bucket: s.bucket.toISOString(), totalLag: Number(s.totalLag) })),
  };
}

/**
 * What the viewer may decide on this subscription's own page, by the same
 * rules the actions enforce: approve or reject a request (the product's owners
 * unless the product is RESTRICTED, or governance; never the requester or an
 * editor of the request), revoke access (the product's owners, governance) or
 * cancel the subscription (the subscribing domain's owners).
 */
function accessDecisions(
  actor: Actor,
  sub: { status: string; requestedById: string; editorIds: string[]; consumingDomainId: string; product: { domainId: string; classification: string } },
) {
  const granted = sub.status === "APPROVED" || sub.status === "ACTIVE";
  const mayDecide = hasGlobal(actor, "subscription:decide") || (sub.product.classification !== "RESTRICTED" && canInDomain(actor, "subscription:decide", sub.product.domainId));
  const canRevoke = granted && (hasGlobal(actor, "subscription:revoke") || canInDomain(actor, "subscription:revoke", sub.product.domainId));
  return {
    canDecide: sub.status === "REQUESTED" && mayDecide && sub.requestedById !== actor.id && !sub.editorIds.includes(actor.id),
    canRevoke,
    canCancel: granted && !canRevoke && canInDomain(actor, "subscription:revoke", sub.consumingDomainId),
  };
}

/** The admin's view of provisioning health. Platform admins only. */
export async function platformOverview(db: Db, actor: Actor) {
  if (!hasGlobal(actor, "platform:admin")) throw new ForbiddenError("Only platform admins can see the platform view.");
  const [counts, open, failed, workers, runs] = await Promise.all([
    db.provisioningTask.groupBy({ by: ["status"], _count: { _all: true } }),
    db.provisioningTask.findMany({ where: { status: { in: ["PENDING", "RUNNING"] } }, orderBy: [{ runAfter: "asc" }, { createdAt: "asc" }], take: 100 }),
    db.provisioningTask.findMany({ where: { status: "FAILED" }, orderBy: { updatedAt: "desc" }, take: 100 }),
    db.workerInstance.findMany({ orderBy: { lastSeenAt: "desc" }, take: 50 }),
    db.reconcileRun.findMany({ orderBy: { startedAt: "desc" }, take: 10 }),
  ]);
  // Name what each task is for, so a row reads "Order Events" rather than an id.
  const tasks = [...open, ...failed];
  const productIds = tasks.filter((t) => t.entityType === "DataProduct").map((t) => t.entityId);
  const subscriptionIds = tasks.filter((t) => t.entityType === "Subscription").map((t) => t.entityId);
  const accountIds = tasks.filter((t) => t.entityType === "ServiceAccount").map((t) => t.entityId);
  const [products, subscriptions, accounts] = await Promise.all([
    db.dataProduct.findMany({ where: { id: { in: productIds } }, select: { id: true, name: true } }),
    db.subscription.findMany({ where: { id: { in: subscriptionIds } }, select: { id: true, product: { select: { name: true } }, serviceAccount: { select: { name: true } } } }),
    db.serviceAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, name: true } }),
  ]);
  const names = new Map<string, { label: string; href: string | null }>([
    ...products.map((p) => [p.id, { label: p.name, href: `/products/${p.id}` }] as const),
    ...subscriptions.map((s) => [s.id, { label: `${s.product.name} ← User:${s.serviceAccount.name}`, href: `/subscriptions/${s.id}` }] as const),
    ...accounts.map((a) => [a.id, { label: `User:${a.name}`, href: null }] as const),
  ]);
  const row = (t: (typeof tasks)[number]) => ({
    id: t.id,
    kind: t.kind,
    label: taskLabel(t.kind),
    status: t.status,
    attempts: t.attempts,
    lastError: t.lastError,
    entityType: t.entityType,
    entityId: t.entityId,
    entity: names.get(t.entityId) ?? { label: `${t.entityType} ${t.entityId}`, href: null },
    step: t.step,
    runAfter: t.runAfter.toISOString(),
    leasedBy: t.leasedBy,
    leaseUntil: t.leaseUntil?.toISOString() ?? null,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  });
  const count = (status: string) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return {
    counts: { PENDING: count("PENDING"), RUNNING: count("RUNNING"), FAILED: count("FAILED"), DONE: count("DONE") },
    pending: open.filter((t) => t.status === "PENDING").map(row),
    running: open.filter((t) => t.status === "RUNNING").map(row),
    failed: failed.map(row),
    workers: workers.map((w) => ({ workerId: w.workerId, status: w.status, startedAt: w.startedAt.toISOString(), lastSeenAt: w.lastSeenAt.toISOString() })),
    reconcileRuns: runs.map((r) => ({
      id: r.id.toString(),
      workerId: r.workerId,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      driftCount: r.driftCount,
      drift: parseDrift(r.drift),
      error: r.error,
    })),
  };
}

function parseDrift(value: unknown): { kind: string; resource: string; detail: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((d: unknown) => {
    if (typeof d !== "object" || d === null) return [];
    const r = d as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
    return [{ kind: text(r.kind), resource: text(r.resource), detail: text(r.detail) }];
  });
}
