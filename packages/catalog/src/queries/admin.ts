import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import { requireMemberManager } from "../admin/domain-access.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

const LIVE = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

/** Every domain with its head counts, archived ones last (admins). */
export async function listDomains(db: Db, actor: Actor) {
  if (!hasGlobal(actor, "domain:manage")) throw new ForbiddenError("Only platform admins manage domains.");
  const domains = await db.domain.findMany({
    orderBy: [{ archivedAt: { sort: "asc", nulls: "first" } }, { name: "asc" }],
    include: { _count: { select: { memberships: true, products: { where: { status: { in: [...LIVE] } } } } } },
  });
  const owners = await db.membership.groupBy({ by: ["domainId"], where: { role: "OWNER" }, _count: { _all: true } });
  const ownerCount = new Map(owners.map((o) => [o.domainId, o._count._all]));
  return domains.map(({ _count, ...d }) => ({ ...d, members: _count.memberships, liveProducts: _count.products, owners: ownerCount.get(d.id) ?? 0 }));
}

/** One domain and its members with their roles and where each role came from (admins and the domain's owners). */
export async function domainMembers(db: Db, actor: Actor, domainId: string) {
  requireMemberManager(actor, domainId);
  const domain = await db.domain.findUnique({ where: { id: domainId } });
  if (!domain) throw new NotFoundError("Domain", domainId);
  const memberships = await db.membership.findMany({
    where: { domainId },
    orderBy: [{ role: "asc" }, { user: { email: "asc" } }],
    include: { user: { select: { id: true, email: true, name: true, lastSignInAt: true } } },
  });
  const mappings = await db.ssoGroupMapping.findMany({ where: { domainId }, orderBy: { group: "asc" } });
  return {
    domain,
    members: memberships.map((m) => ({ userId: m.userId, role: m.role, source: m.source, since: m.createdAt, user: m.user })),
    ssoGroups: mappings.map((m) => ({ id: m.id, group: m.group, role: m.role })),
  };
}

export const listUsersInput = z.object({
  q: z.string().max(200).trim().optional(),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});

/** People with their global role and memberships, for the admin page. */
export async function listUsers(db: Db, actor: Actor, rawInput: unknown) {
  if (!hasGlobal(actor, "user:manage")) throw new ForbiddenError("Only platform admins manage users and global roles.");
  const input = parseInput(listUsersInput, rawInput);
  const where: Prisma.UserWhereInput = input.q
    ? { OR: [{ email: { contains: input.q, mode: "insensitive" } }, { name: { contains: input.q, mode: "insensitive" } }] }
    : {};
  const [total, users] = await db.$transaction([
    db.user.count({ where }),
    db.user.findMany({
      where,
      orderBy: { email: "asc" },
      skip: (input.page - 1) * input.pageSize,
      take: input.pageSize,
      omit: { passwordHash: false },
      include: { memberships: { include: { domain: { select: { slug: true, name: true } } } } },
    }),
  ]);
  return {
    items: users.map(({ passwordHash, memberships, ...u }) => ({
      ...u,
      // Whether a local password exists, never the hash.
      localPassword: passwordHash !== null,
      memberships: memberships.map((m) => ({ domainId: m.domainId, domainSlug: m.domain.slug, domainName: m.domain.name, role: m.role, source: m.source })),
    })),
    total,
    page: input.page,
    pageSize: input.pageSize,
    pageCount: Math.max(1, Math.ceil(total / input.pageSize)),
  };
}

/** The single-sign-on group mapping, as the admin page shows it. */
export async function listSsoGroupMappings(db: Db, actor: Actor) {
  if (!hasGlobal(actor, "user:manage")) throw new ForbiddenError("Only platform admins see the single-sign-on mapping.");
  const mappings = await db.ssoGroupMapping.findMany({
    orderBy: [{ group: "asc" }, { createdAt: "asc" }],
    include: { domain: { select: { slug: true, name: true, archivedAt: true } } },
  });
  return mappings;
}
