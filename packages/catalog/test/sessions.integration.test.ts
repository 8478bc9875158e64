import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDomainMember, changeMemberRole, endSessions, loadActor, removeDomainMember, sessionVersionOf, setGlobalRole, type Db } from "../src/index.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 13: a JWT session stayed valid for its 8 hours after
 * sign-out. Sessions carry the user's session version; sign-out
 * (endSessions) and a role removed or changed bump it, and the portal
 * refuses a session whose version is not the user's (server/actor.ts; the
 * e2e "sessions end at sign-out" test copies a cookie across it).
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

describe("session versions", () => {
  it("sign-out bumps the version the actor carries", async () => {
    const id = ctx.people.paymentsMember.id;
    const before = await sessionVersionOf(db, id);
    expect((await loadActor(db, id)).sessionVersion).toBe(before);
    expect(await endSessions(db, id)).toBe(before + 1);
    expect((await loadActor(db, id)).sessionVersion).toBe(before + 1);
  });

  it("a role removed or changed ends the person's sessions; an unchanged role does not", async () => {
    // Owners add people who already have an account (issue 30, finding 15): the account first.
    await db.user.create({ data: { email: "analyst@payments.test", name: "Analyst" } });
    const added = await addDomainMember(db, ctx.as.paymentsOwner, ctx.payments.id, { email: "analyst@payments.test", role: "MEMBER" });
    const userId = added.userId;
    const version = () => sessionVersionOf(db, userId);
    const v0 = await version();
    await changeMemberRole(db, ctx.as.paymentsOwner, ctx.payments.id, userId, { role: "OWNER" });
    const v1 = await version();
    expect(v1).toBe(v0 + 1);
    await changeMemberRole(db, ctx.as.paymentsOwner, ctx.payments.id, userId, { role: "OWNER" });
    expect(await version()).toBe(v1);
    await setGlobalRole(db, ctx.as.admin, userId, { globalRole: "GOVERNANCE" });
    const v2 = await version();
    expect(v2).toBe(v1 + 1);
    await removeDomainMember(db, ctx.as.admin, ctx.payments.id, userId);
    expect(await version()).toBe(v2 + 1);
  });
});
