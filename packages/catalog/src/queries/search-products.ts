import type { Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { hasGlobal } from "../permissions.ts";
import { searchProductsInput } from "../validation.ts";

/** Statuses in which a product is published: anyone signed in may find it. */
export const PUBLISHED_STATUSES = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

/**
 * Which products the actor may see: published ones, plus — for members of the
 * owning domain and for governance — drafts, reviews and rejections.
 */
export function visibleProducts(actor: Actor): Prisma.DataProductWhereInput {
  if (hasGlobal(actor, "product:review")) return {};
  return {
    OR: [{ status: { in: [...PUBLISHED_STATUSES] } }, { domainId: { in: actor.memberships.map((m) => m.domainId) } }],
  };
}

/**
 * The catalog search behind both the page and `GET /api/v1/products`: text over
 * name, description and tags (trigram-indexed ILIKE), filters, sorting and
 * pagination. Every signed-in user may search: discovery is the point.
 */
export async function searchProducts(db: Db, actor: Actor, rawInput: unknown) {
  const input = parseInput(searchProductsInput, rawInput);
  const where: Prisma.DataProductWhereInput = {};
  const and: Prisma.DataProductWhereInput[] = [visibleProducts(actor)];
  if (input.q) {
    const term = input.q;
    and.push({
      OR: [
        { name: { contains: term, mode: "insensitive" } },
        { description: { contains: term, mode: "insensitive" } },
        { tags: { has: term.toLowerCase() } },
        { topicName: { contains: term, mode: "insensitive" } },
      ],
    });
  }
  if (input.domain) and.push({ domain: { slug: input.domain } });
  if (input.classification) and.push({ classification: input.classification });
  if (input.tag) and.push({ tags: { has: input.tag } });
  if (input.status) and.push({ status: input.status });
  else and.push({ status: { not: "RETIRED" } });
  where.AND = and;

  const orderBy: Prisma.DataProductOrderByWithRelationInput[] =
    input.sort === "name" ? [{ name: "asc" }, { id: "asc" }] : input.sort === "created" ? [{ createdAt: "desc" }, { id: "asc" }] : [{ updatedAt: "desc" }, { id: "asc" }];

  const [total, items] = await db.$transaction([
    db.dataProduct.count({ where }),
    db.dataProduct.findMany({
      where,
      orderBy,
      skip: (input.page - 1) * input.pageSize,
      take: input.pageSize,
      include: { domain: { select: { slug: true, name: true } }, _count: { select: { subscriptions: { where: { status: "ACTIVE" } } } } },
    }),
  ]);
  return { items, total, page: input.page, pageSize: input.pageSize, pageCount: Math.max(1, Math.ceil(total / input.pageSize)) };
}

/** Values for the catalog's filter menus: tags of the products the actor can find. */
export async function catalogFacets(db: Db, actor: Actor) {
  const [domains, products] = await Promise.all([
    db.domain.findMany({ select: { slug: true, name: true }, orderBy: { name: "asc" } }),
    db.dataProduct.findMany({ where: { AND: [visibleProducts(actor), { status: { not: "RETIRED" } }] }, select: { tags: true } }),
  ]);
  const counts = new Map<string, number>();
  for (const p of products) for (const tag of p.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  const tags = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 50).map(([tag]) => tag);
  return { domains, tags };
}
