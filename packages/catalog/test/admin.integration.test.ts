import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addDomainMember,
  applySsoSignIn,
  archiveDomain,
  changeMemberRole,
  createDomain,
  createSsoGroupMapping,
  deleteSsoGroupMapping,
  domainMembers,
  listDomains,
  listUsers,
  loadActor,
  registerProduct,
  removeDomainMember,
  renameDomain,
  restoreDomain,
  setGlobalRole,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
const browser = { clientAddress: "203.0.113.7", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chromium/140" };

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const lastAudit = (entityId: string, action: string) => db.auditEvent.findFirst({ where: { entityId, action }, orderBy: { id: "desc" } });

describe("domains", () => {
  it("admins create, rename, archive and restore a domain; each change is audited with the client address and user agent", async () => {
    const admin = { ...ctx.as.admin, request: browser };
    const domain = await createDomain(db, admin, { slug: "logistics", name: "Logistics" });
    expect(domain.slug).toBe("logistics");
    const created = await lastAudit(domain.id, "domain.created");
    expect(created).toMatchObject({ actorEmail: "admin@kappa.test", clientAddress: "203.0.113.7", userAgent: browser.userAgent, data: { slug: "logistics" } });

    await renameDomain(db, admin, domain.id, { name: "Logistics & Fleet" });
    expect(await lastAudit(domain.id, "domain.renamed")).toMatchObject({ data: { from: "Logistics", to: "Logistics & Fleet" } });
    expect((await db.domain.findUniqueOrThrow({ where: { id: domain.id } })).slug).toBe("logistics");

    await archiveDomain(db, admin, domain.id);
    expect((await listDomains(db, await loadActor(db, ctx.people.admin.id))).find((d) => d.id === domain.id)?.archivedAt).not.toBeNull();
    await expect(archiveDomain(db, admin, domain.id)).rejects.toMatchObject({ code: "DOMAIN_ARCHIVED" });
    await restoreDomain(db, admin, domain.id);
    expect(await lastAudit(domain.id, "domain.restored")).not.toBeNull();
  });

  it("refuses non-admins, duplicate and reserved slugs, and archiving a domain with live work", async () => {
    await expect(createDomain(db, ctx.as.ordersOwner, { slug: "mine", name: "Mine" })).rejects.toMatchObject({ status: 403 });
    await expect(createDomain(db, ctx.as.admin, { slug: "orders", name: "Orders again" })).rejects.toMatchObject({ status: 409, fields: { slug: [expect.any(String)] } });
    await expect(createDomain(db, ctx.as.admin, { slug: "kappa-ops", name: "Sneaky" })).rejects.toMatchObject({ status: 400, fields: { slug: [expect.stringContaining("reserved")] } });
    await expect(createDomain(db, ctx.as.admin, { slug: "Bad Slug", name: "Bad" })).rejects.toMatchObject({ status: 400 });
    await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Archive Blocker" }));
    await expect(archiveDomain(db, ctx.as.admin, ctx.orders.id)).rejects.toMatchObject({ code: "DOMAIN_IN_USE", message: expect.stringContaining("Archive Blocker") });
  });

  it("an archived domain takes no products", async () => {
    const domain = await createDomain(db, ctx.as.admin, { slug: "sunset", name: "Sunset" });
    await addDomainMember(db, ctx.as.admin, domain.id, { email: "owner@sunset.test", role: "OWNER" });
    const owner = await db.user.findUniqueOrThrow({ where: { email: "owner@sunset.test" } });
    await archiveDomain(db, ctx.as.admin, domain.id);
    await expect(registerProduct(db, { userId: owner.id }, productInput(domain.id, { name: "Too Late" }))).rejects.toMatchObject({ code: "DOMAIN_ARCHIVED" });
  });
});

describe("members", () => {
  it("owners and admins add members (only admins create an SSO-only account for a new e-mail), change roles and remove them; the last owner stays", async () => {
    // Issue 30, finding 15: an owner adds people who have an account; an unknown e-mail is the admins' to create.
    await expect(addDomainMember(db, ctx.as.paymentsOwner, ctx.payments.id, { email: "New.Analyst@Payments.test", role: "MEMBER", name: "The CEO" })).rejects.toMatchObject({
      status: 400,
      fields: { email: [expect.stringContaining("a platform admin adds them")] },
    });
    expect(await db.user.count({ where: { email: "new.analyst@payments.test" } })).toBe(0);
    const byAdmin = await addDomainMember(db, ctx.as.admin, ctx.orders.id, { email: "New.Analyst@Payments.test", role: "MEMBER" });
    expect(byAdmin.user.email).toBe("new.analyst@payments.test");
    const added = await addDomainMember(db, ctx.as.paymentsOwner, ctx.payments.id, { email: "New.Analyst@Payments.test", role: "MEMBER" });
    expect(added.user.email).toBe("new.analyst@payments.test");
    const user = await db.user.findUniqueOrThrow({ where: { email: "new.analyst@payments.test" }, omit: { passwordHash: false } });
    expect(user.passwordHash).toBeNull();
    expect(await lastAudit(ctx.payments.id, "member.added")).toMatchObject({ actorEmail: "owner@payments.test", data: { email: "new.analyst@payments.test", role: "MEMBER" } });
    await expect(addDomainMember(db, ctx.as.admin, ctx.payments.id, { email: "new.analyst@payments.test", role: "OWNER" })).rejects.toMatchObject({ code: "ALREADY_MEMBER" });

    await changeMemberRole(db, ctx.as.admin, ctx.payments.id, user.id, { role: "OWNER" });
    expect(await lastAudit(ctx.payments.id, "member.roleChanged")).toMatchObject({ data: { from: "MEMBER", to: "OWNER" } });
    // The new owner now acts as one: roles are re-read per action.
    expect((await loadActor(db, user.id)).memberships).toEqual(expect.arrayContaining([expect.objectContaining({ domainId: ctx.payments.id, role: "OWNER" })]));

    await removeDomainMember(db, ctx.as.paymentsOwner, ctx.payments.id, user.id);
    await expect(removeDomainMember(db, ctx.as.admin, ctx.payments.id, ctx.people.paymentsOwner.id)).rejects.toMatchObject({ code: "LAST_OWNER" });
    await expect(changeMemberRole(db, ctx.as.paymentsOwner, ctx.payments.id, ctx.people.paymentsOwner.id, { role: "MEMBER" })).rejects.toMatchObject({ code: "LAST_OWNER" });

    const view = await domainMembers(db, await loadActor(db, ctx.people.paymentsOwner.id), ctx.payments.id);
    expect(view.members.map((m) => m.user.email).sort()).toEqual(["member@payments.test", "owner@payments.test"]);
  });

  it("members and other domains' owners cannot manage members", async () => {
    await expect(addDomainMember(db, ctx.as.paymentsMember, ctx.payments.id, { email: "x@payments.test", role: "MEMBER" })).rejects.toMatchObject({ status: 403 });
    await expect(addDomainMember(db, ctx.as.ordersOwner, ctx.payments.id, { email: "x@payments.test", role: "OWNER" })).rejects.toMatchObject({ status: 403 });
    await expect(domainMembers(db, await loadActor(db, ctx.people.reviewer.id), ctx.payments.id)).rejects.toMatchObject({ status: 403 });
  });
});

describe("global roles", () => {
  it("admins set global roles of others, never their own, and keep one admin", async () => {
    await setGlobalRole(db, { ...ctx.as.admin, request: browser }, ctx.people.paymentsMember.id, { globalRole: "GOVERNANCE" });
    expect(await lastAudit(ctx.people.paymentsMember.id, "user.globalRoleChanged")).toMatchObject({ data: { from: "USER", to: "GOVERNANCE" }, clientAddress: "203.0.113.7" });
    await setGlobalRole(db, ctx.as.admin, ctx.people.paymentsMember.id, { globalRole: "USER" });
    await expect(setGlobalRole(db, ctx.as.admin, ctx.people.admin.id, { globalRole: "GOVERNANCE" })).rejects.toMatchObject({ status: 403 });
    await expect(setGlobalRole(db, ctx.as.reviewer, ctx.people.ordersOwner.id, { globalRole: "ADMIN" })).rejects.toMatchObject({ status: 403 });
    // A second admin demotes the first, then cannot be demoted by anyone: the last admin stays.
    await setGlobalRole(db, ctx.as.admin, ctx.people.reviewer2.id, { globalRole: "ADMIN" });
    await setGlobalRole(db, ctx.as.reviewer2, ctx.people.admin.id, { globalRole: "USER" });
    await expect(setGlobalRole(db, ctx.as.admin, ctx.people.reviewer2.id, { globalRole: "USER" })).rejects.toMatchObject({ status: 403 });
    await setGlobalRole(db, ctx.as.reviewer2, ctx.people.admin.id, { globalRole: "ADMIN" });
    await setGlobalRole(db, ctx.as.admin, ctx.people.reviewer2.id, { globalRole: "GOVERNANCE" });
    await expect(setGlobalRole(db, ctx.as.admin, ctx.people.reviewer2.id, { globalRole: "SUPERUSER" })).rejects.toMatchObject({ status: 400 });
    const page = await listUsers(db, await loadActor(db, ctx.people.admin.id), { q: "gov.test" });
    expect(page.items.map((u) => u.email).sort()).toEqual(["reviewer2@gov.test", "reviewer@gov.test"]);
    expect(page.items[0]).not.toHaveProperty("passwordHash");
  });

  it("two admins demoting each other at once leave one admin, never none", async () => {
    const a = await db.user.create({ data: { email: "a@race.test", name: "A", globalRole: "ADMIN" } });
    const b = await db.user.create({ data: { email: "b@race.test", name: "B", globalRole: "ADMIN" } });
    // Only these two are admins for this test.
    await db.user.updateMany({ where: { globalRole: "ADMIN", id: { notIn: [a.id, b.id] } }, data: { globalRole: "GOVERNANCE" } });
    const results = await Promise.allSettled([
      setGlobalRole(db, { userId: a.id }, b.id, { globalRole: "USER" }),
      setGlobalRole(db, { userId: b.id }, a.id, { globalRole: "USER" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    // Refused as LAST_ADMIN when both read their roles before either committed, FORBIDDEN when the loser read after.
    const refused = results.find((r) => r.status === "rejected");
    expect(["LAST_ADMIN", "FORBIDDEN"]).toContain(refused?.status === "rejected" ? (refused.reason as { code: string }).code : null);
    expect(await db.user.count({ where: { globalRole: "ADMIN" } })).toBe(1);
    await db.user.update({ where: { id: ctx.people.admin.id }, data: { globalRole: "ADMIN" } });
  });
});

describe("single sign-on", () => {
  it("maps groups to memberships and roles at each sign-in, removing what SSO granted when groups change, never touching manual grants", async () => {
    const logistics = await createDomain(db, ctx.as.admin, { slug: "fleet", name: "Fleet" });
    const orders = await createSsoGroupMapping(db, ctx.as.admin, { group: "orders-analysts", domainId: ctx.orders.id, role: "MEMBER" });
    await createSsoGroupMapping(db, ctx.as.admin, { group: "fleet-leads", domainId: logistics.id, role: "OWNER" });
    await createSsoGroupMapping(db, ctx.as.admin, { group: "/governance", globalRole: "GOVERNANCE" });
    await expect(createSsoGroupMapping(db, ctx.as.admin, { group: "orders-analysts", domainId: ctx.orders.id, role: "OWNER" })).rejects.toMatchObject({ code: "DUPLICATE_MAPPING" });
    await expect(createSsoGroupMapping(db, ctx.as.admin, { group: "/governance", globalRole: "ADMIN" })).rejects.toMatchObject({ code: "DUPLICATE_MAPPING" });
    await expect(createSsoGroupMapping(db, ctx.as.admin, { group: "x", domainId: ctx.orders.id, role: "OWNER", globalRole: "ADMIN" })).rejects.toMatchObject({ status: 400 });
    await expect(createSsoGroupMapping(db, ctx.as.ordersOwner, { group: "y", globalRole: "ADMIN" })).rejects.toMatchObject({ status: 403 });

    // First sign-in: orders member and governance.
    const first = await applySsoSignIn(db, { email: "Dana@Corp.test", name: "Dana", groups: ["orders-analysts", "/governance", "unmapped"] }, browser);
    let actor = await loadActor(db, first.id);
    expect(actor.globalRole).toBe("GOVERNANCE");
    expect(actor.memberships).toEqual([expect.objectContaining({ domainId: ctx.orders.id, role: "MEMBER" })]);
    expect(await lastAudit(first.id, "sso.accessSynced")).toMatchObject({ actorEmail: "dana@corp.test", clientAddress: "203.0.113.7", data: { added: ["orders:MEMBER"], globalRole: "USER→GOVERNANCE" } });

    // An admin adds a manual membership in payments; SSO never removes it.
    await addDomainMember(db, ctx.as.admin, ctx.payments.id, { email: "dana@corp.test", role: "MEMBER" });

    // Groups change at the provider: orders and governance gone, fleet lead now.
    await applySsoSignIn(db, { email: "dana@corp.test", name: "Dana", groups: ["fleet-leads"] });
    actor = await loadActor(db, first.id);
    expect(actor.globalRole).toBe("USER");
    expect(actor.memberships.map((m) => `${m.domainSlug}:${m.role}`).sort()).toEqual(["fleet:OWNER", "payments:MEMBER"]);
    expect(await lastAudit(first.id, "sso.accessSynced")).toMatchObject({ data: { added: ["fleet:OWNER"], removed: ["orders:MEMBER"], globalRole: "GOVERNANCE→USER" } });

    // A manual global role is left alone by SSO.
    await setGlobalRole(db, ctx.as.admin, first.id, { globalRole: "ADMIN" });
    await applySsoSignIn(db, { email: "dana@corp.test", groups: ["/governance"] });
    actor = await loadActor(db, first.id);
    expect(actor.globalRole).toBe("ADMIN");
    expect(actor.memberships.map((m) => m.domainSlug)).toEqual(["payments"]);

    // Deleting a mapping takes effect at the next sign-in.
    await applySsoSignIn(db, { email: "erin@corp.test", groups: ["orders-analysts"] });
    await deleteSsoGroupMapping(db, ctx.as.admin, orders.id);
    const erin = await applySsoSignIn(db, { email: "erin@corp.test", groups: ["orders-analysts"] });
    expect((await loadActor(db, erin.id)).memberships).toEqual([]);
    expect(await db.auditEvent.count({ where: { entityId: erin.id, action: "user.signedIn" } })).toBe(2);
  });
});
