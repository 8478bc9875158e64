import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoData } from "../../../prisma/seed.ts";
import { createServiceAccount, defaultPolicySource, getServiceAccount, loadActor, updatePolicy, type Db } from "../src/index.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

/* Issue 33: an account answers the client quota in force — its class, the policy's default when none was chosen. */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

describe("getServiceAccount", () => {
  it("answers members of the account's domain with the quota of the default class, 404 to everyone else, and follows the admins' default", async () => {
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-quota-reader", description: "reads" });
    const member = await loadActor(db, ctx.people.paymentsMember.id);
    const seen = await getServiceAccount(db, member, account.id);
    expect(seen).toMatchObject({ id: account.id, name: "payments-quota-reader", domain: { slug: "payments" }, isProducer: false });
    expect(seen.quota).toEqual({ class: "standard", producerByteRate: 5242880, consumerByteRate: 10485760, requestPercentage: 50 });
    expect(Object.keys(seen)).not.toEqual(expect.arrayContaining(["secretHash"]));
    for (const who of [ctx.people.ordersOwner.id, ctx.people.admin.id, ctx.people.reviewer.id]) {
      await expect(getServiceAccount(db, await loadActor(db, who), account.id)).rejects.toMatchObject({ status: 404 });
    }
    await expect(getServiceAccount(db, member, "no-such-account")).rejects.toMatchObject({ status: 404 });

    // An admin makes `bulk` the default: every account without a class of its own follows.
    const source = defaultPolicySource().replace("      default: standard\n", "      default: bulk\n");
    expect(source).not.toBe(defaultPolicySource());
    await updatePolicy(db, ctx.as.admin, { source, reason: "Bulk by default for the migration weekend." });
    expect((await getServiceAccount(db, member, account.id)).quota).toEqual({ class: "bulk", producerByteRate: 52428800, consumerByteRate: 104857600, requestPercentage: 200 });
    // A policy whose default is not one of its classes is refused.
    await expect(updatePolicy(db, ctx.as.admin, { source: source.replace("      default: bulk\n", "      default: gold\n"), reason: "Typo in the class name." })).rejects.toMatchObject({ status: 400 });
  });
});

describe("the demo's accounts", () => {
  let demo: Db;
  let disposeDemo: () => Promise<void>;
  beforeAll(async () => {
    ({ db: demo, dispose: disposeDemo } = await openTestDatabase());
    await seedDemoData(demo);
  });
  afterAll(async () => disposeDemo());

  it("carry the standard class, seen by a member of each account's domain", async () => {
    const accounts = await demo.serviceAccount.findMany({ select: { id: true, domainId: true } });
    expect(accounts.length).toBeGreaterThan(0);
    for (const a of accounts) {
      const membership = await demo.membership.findFirstOrThrow({ where: { domainId: a.domainId } });
      const seen = await getServiceAccount(demo, await loadActor(demo, membership.userId), a.id);
      expect(seen.quota).toMatchObject({ class: "standard", producerByteRate: 5242880 });
    }
  });
});
