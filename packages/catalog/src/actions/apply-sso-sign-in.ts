import type { MembershipRole } from "@prisma/client";
import { parseInput } from "../action.ts";
import { ssoAccessFor } from "../admin/sso-access.ts";
import { ssoSignInInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { normaliseRequestContext, type RequestContext } from "../request-context.ts";

/**
 * Runs at every single-sign-on sign-in: finds or creates the user the
 * provider vouched for and brings what SSO granted in line with the group
 * mapping *now*. Only SSO-sourced grants change: memberships and global roles
 * that an admin or owner set by hand are never added to, lowered or removed
 * here (a manual USER role — everyone's default — counts as unset). The user
 * acts for themselves; changes are one audit event `sso.accessSynced`.
 */
export async function applySsoSignIn(db: Db, rawInput: unknown, request?: Partial<RequestContext>) {
  const input = parseInput(ssoSignInInput, rawInput);
  const context = normaliseRequestContext(request);
  return db.$transaction(
    async (tx) => {
      const upserted = await tx.user.upsert({
        where: { email: input.email },
        create: { email: input.email, name: input.name || input.email },
        update: {},
      });
      // Two sign-ins of one person at once apply one after the other.
      await tx.$queryRaw`SELECT id FROM "User" WHERE id = ${upserted.id} FOR UPDATE`;
      const user = await tx.user.findUniqueOrThrow({ where: { id: upserted.id } });
      const [mappings, current, archived] = await Promise.all([
        tx.ssoGroupMapping.findMany({ where: { group: { in: input.groups } } }),
        tx.membership.findMany({ where: { userId: user.id }, include: { domain: { select: { slug: true } } } }),
        tx.domain.findMany({ where: { archivedAt: { not: null } }, select: { id: true } }),
      ]);
      const access = ssoAccessFor(mappings, input.groups);
      for (const a of archived) access.memberships.delete(a.id);

      const added: { domainId: string; role: MembershipRole }[] = [];
      const changed: { domainId: string; from: MembershipRole; to: MembershipRole }[] = [];
      const removed: { domainId: string; role: MembershipRole }[] = [];
      for (const [domainId, role] of access.memberships) {
        const existing = current.find((m) => m.domainId === domainId);
        if (!existing) {
          await tx.membership.create({ data: { userId: user.id, domainId, role, source: "SSO" } });
          added.push({ domainId, role });
        } else if (existing.source === "SSO" && existing.role !== role) {
          await tx.membership.update({ where: { userId_domainId: { userId: user.id, domainId } }, data: { role } });
          changed.push({ domainId, from: existing.role, to: role });
        }
      }
      for (const m of current) {
        if (m.source === "SSO" && !access.memberships.has(m.domainId)) {
          await tx.membership.delete({ where: { userId_domainId: { userId: user.id, domainId: m.domainId } } });
          removed.push({ domainId: m.domainId, role: m.role });
        }
      }

      const roleIsSso = user.globalRoleSource === "SSO" || user.globalRole === "USER";
      let globalRole: { from: string; to: string } | null = null;
      if (roleIsSso && user.globalRole !== access.globalRole) {
        globalRole = { from: user.globalRole, to: access.globalRole };
      }
      const updated = await tx.user.update({
        where: { id: user.id },
        data: {
          lastSignInAt: new Date(),
          ...(input.name && input.name !== user.name ? { name: input.name } : {}),
          ...(globalRole ? { globalRole: access.globalRole, globalRoleSource: access.globalRole === "USER" ? "MANUAL" : "SSO" } : {}),
          // Roles the directory took away or changed end the person's other sessions (issue 30, finding 13); this sign-in's session reads the new version.
          ...(changed.length > 0 || removed.length > 0 || globalRole ? { sessionVersion: { increment: 1 } } : {}),
        },
      });

      const actor = { id: user.id, email: user.email, ...(context ? { request: context } : {}) };
      const slugOf = async (ids: string[]) => new Map((await tx.domain.findMany({ where: { id: { in: ids } }, select: { id: true, slug: true } })).map((d) => [d.id, d.slug]));
      const slugs = await slugOf([...added, ...changed, ...removed].map((x) => x.domainId));
      const slug = (id: string) => slugs.get(id) ?? id;
      await recordAudit(tx, actor, "user.signedIn", "User", user.id, { provider: "oidc", groups: input.groups.slice(0, 50) });
      if (added.length + changed.length + removed.length > 0 || globalRole) {
        await recordAudit(tx, actor, "sso.accessSynced", "User", user.id, {
          ...(added.length ? { added: added.map((a) => `${slug(a.domainId)}:${a.role}`) } : {}),
          ...(changed.length ? { changed: changed.map((c) => `${slug(c.domainId)}:${c.from}→${c.to}`) } : {}),
          ...(removed.length ? { removed: removed.map((r) => `${slug(r.domainId)}:${r.role}`) } : {}),
          ...(globalRole ? { globalRole: `${globalRole.from}→${globalRole.to}` } : {}),
        });
      }
      return { id: updated.id, email: updated.email, name: updated.name, globalRole: updated.globalRole };
    },
    { isolationLevel: "ReadCommitted", timeout: 15_000 },
  );
}
