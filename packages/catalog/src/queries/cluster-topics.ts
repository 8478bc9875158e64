import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { parseInput } from "../action.ts";
import { namespaceOwner } from "../actions/claim-topic.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

export const clusterTopicsInput = z.object({
  managed: z.enum(["true", "false"]).optional(),
  q: z.string().max(249).trim().optional(),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(500).default(100),
});

/** Platform admins and every domain owner browse the cluster (owners pick topics to claim). */
export function requireClusterBrowser(actor: Actor): void {
  if (!hasGlobal(actor, "platform:admin") && !actor.memberships.some((m) => m.role === "OWNER")) {
    throw new ForbiddenError("Only platform admins and domain owners browse the cluster's topics.");
  }
}

type DomainRef = { id: string; slug: string; name: string };

/** Who may claim an unmanaged topic: the domain whose prefix the name lies under (only its owners), or null (any domain's owners). */
function claimableBy(t: { name: string; productId: string | null }, domains: readonly DomainRef[]) {
  if (t.productId !== null) return null;
  const owner = namespaceOwner(t.name, domains);
  return owner ? { domainId: owner.id, domainSlug: owner.slug, domainName: owner.name } : null;
}

function row(t: Prisma.ClusterTopicGetPayload<object>, domains: readonly DomainRef[]) {
  return {
    name: t.name,
    managed: t.productId !== null,
    /** Unmanaged topics under a domain's prefix: only that domain's owners claim them (claim-topic.ts). */
    claimableBy: claimableBy(t, domains),
    productId: t.productId,
    partitions: t.partitions,
    configs: t.configs,
    endOffset: t.endOffset,
    earliestOffset: t.earliestOffset,
    sizeBytes: t.sizeBytes,
    acls: t.acls,
    groups: t.groups,
    observedAt: t.observedAt,
  };
}

/**
 * Every topic the worker's last cluster scan saw, `managed: true` with its
 * product id when a live product owns it, `managed: false` otherwise (with
 * partitions, configs, size, offsets, consumer groups and ACLs).
 */
export async function listClusterTopics(db: Db, actor: Actor, rawInput: unknown) {
  requireClusterBrowser(actor);
  const input = parseInput(clusterTopicsInput, rawInput);
  const where: Prisma.ClusterTopicWhereInput = {
    ...(input.managed === "true" ? { productId: { not: null } } : input.managed === "false" ? { productId: null } : {}),
    ...(input.q ? { name: { contains: input.q, mode: "insensitive" } } : {}),
  };
  const [total, items, scan] = await db.$transaction([
    db.clusterTopic.count({ where }),
    db.clusterTopic.findMany({ where, orderBy: { name: "asc" }, skip: (input.page - 1) * input.pageSize, take: input.pageSize }),
    db.clusterTopic.aggregate({ _max: { observedAt: true } }),
  ]);
  const domains = await db.domain.findMany({ select: { id: true, slug: true, name: true } });
  return { items: items.map((t) => row(t, domains)), total, page: input.page, pageSize: input.pageSize, pageCount: Math.max(1, Math.ceil(total / input.pageSize)), observedAt: scan._max.observedAt };
}

export async function clusterTopic(db: Db, actor: Actor, name: string) {
  requireClusterBrowser(actor);
  const t = await db.clusterTopic.findUnique({ where: { name } });
  if (!t) throw new NotFoundError("Topic", name);
  return row(t, await db.domain.findMany({ select: { id: true, slug: true, name: true } }));
}

/** A claim still open (not yet approved) whose product edits its schema. */
const OPEN_CLAIM_STATUSES = ["DRAFT", "IN_REVIEW", "REJECTED"] as const;

/**
 * Who may have the worker sample a topic's records (schema inference), and see
 * what it inferred (issue 30, finding 5): records may hold data no grant
 * covers (a topic keyed by e-mail), so not every domain owner — the platform
 * admins, or the owners of an open claim on the topic that a platform admin
 * approved for sampling. Returns the open claim's product id (its draft may
 * take the inferred schema), null when the topic has none; 403 otherwise.
 */
export async function requireInferenceAccess(db: Pick<Db, "topicClaim">, actor: Actor, topic: string): Promise<{ claimProductId: string | null }> {
  if (hasGlobal(actor, "platform:admin")) {
    // An admin may sample any unmanaged topic, an open claim's included (its draft takes the schema).
    const open = await db.topicClaim.findFirst({ where: { topic, product: { status: { in: [...OPEN_CLAIM_STATUSES] } } }, select: { productId: true } });
    return { claimProductId: open?.productId ?? null };
  }
  const owned = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  const claim = owned.length
    ? await db.topicClaim.findFirst({
        where: { topic, samplingApprovedById: { not: null }, product: { domainId: { in: owned }, status: { in: [...OPEN_CLAIM_STATUSES] } } },
        select: { productId: true },
      })
    : null;
  if (!claim) {
    throw new ForbiddenError(
      "Only platform admins infer a topic's schema from its records, or the owners of a claim on the topic that a platform admin approved for sampling: sampled records may hold data no grant covers.",
    );
  }
  return { claimProductId: claim.productId };
}

/** The latest schema inference of an unmanaged topic (null before any request); whoever may request one. */
export async function topicSchemaInference(db: Db, actor: Actor, topic: string) {
  await requireInferenceAccess(db, actor, topic);
  const row = await db.topicSchemaInference.findUnique({ where: { topic } });
  return row ? inferenceView(row) : null;
}

/** What the portal sees of an inference (the schema and how it came about; never sampled records). */
export function inferenceView(row: {
  topic: string;
  status: string;
  requestedAt: Date;
  sampled: number;
  inferred: boolean;
  format: "AVRO" | "JSON_SCHEMA" | null;
  definition: string | null;
  registrySchemaId: number | null;
  explanation: string;
  lastError: string | null;
  finishedAt: Date | null;
}) {
  return {
    topic: row.topic,
    status: row.status as "PENDING" | "DONE" | "FAILED",
    requestedAt: row.requestedAt.toISOString(),
    sampled: row.sampled,
    inferred: row.inferred,
    format: row.format,
    definition: row.definition,
    registrySchemaId: row.registrySchemaId,
    explanation: row.explanation,
    lastError: row.lastError,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
