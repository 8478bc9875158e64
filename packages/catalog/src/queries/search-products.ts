import type { Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Db } from "../db.ts";
import { searchProductsInput } from "../validation.ts";

/**
 * The catalog search behind both the page and `GET /api/v1/products`: text over
 * name, description and tags (trigram-indexed ILIKE), filters, sorting and
 * pagination. Every signed-in user may search: discovery is the point.
 */
export async function searchProducts(db: Db, rawInput: unknown) {
  const input = parseInput(searchProductsInput, rawInput);
  const where: Prisma.DataProductWhereInput = {};
  const and: Prisma.DataProductWhereInput[] = [];
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
  if (and.length > 0) where.AND = and;

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

/** Values for the catalog's filter menus. */
export async function catalogFacets(db: Db) {
  const [domains, tagRows] = await Promise.all([
    db.domain.findMany({ select: { slug: true, name: true }, orderBy: { name: "asc" } }),
    db.$queryRaw<{ tag: string; n: bigint }[]>`SELECT unnest(tags) AS tag, count(*) AS n FROM "DataProduct" GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50`,
  ]);
  return { domains, tags: tagRows.map((r) => r.tag) };
}
