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
  q: z.string().trim().max(249).optional(),
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

/** The latest schema inference of an unmanaged topic (null before any request); admins and owners, like the browser. */
export async function topicSchemaInference(db: Db, actor: Actor, topic: string) {
  requireClusterBrowser(actor);
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
