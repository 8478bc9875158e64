import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveProduct, claimTopic, createServiceAccount, decideClaimAcls, getProduct, loadActor, productDrift, submitForReview, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 31, point 2: the claim review decides each ACL found on a claimed
 * topic — keep (adopt as a subscription of a named service account, or keep as
 * a documented exception with a reason) or remove. A governance reviewer other
 * than the claimant decides; approval waits for the decision; adopted grants
 * become subscriptions the worker grants, exceptions are listed on the product
 * and no longer flagged as unexplained.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  // A governance reviewer who also owns orders: may claim there, so must not decide their own claim.
  await db.membership.create({ data: { userId: ctx.people.reviewer2.id, domainId: ctx.orders.id, role: "OWNER" } });
});
afterAll(async () => dispose());

const acl = (topic: string, principal: string, operation = "READ", patternType = "LITERAL", resourceName = topic) => ({ resourceType: "TOPIC", resourceName, patternType, principal, host: "*", operation, permission: "ALLOW" });
const actor = async (who: keyof typeof ctx.as) => loadActor(db, ctx.as[who].userId);

async function claimed(topic: string, acls: ReturnType<typeof acl>[], by: keyof typeof ctx.as = "ordersOwner") {
  await db.clusterTopic.create({ data: { name: topic, partitions: 3, acls } });
  const product = await claimTopic(db, ctx.as[by], { ...productInput(ctx.orders.id, { name: `Claimed ${topic}`, partitions: 3 }), topic });
  await submitForReview(db, ctx.as[by], product.id);
  return product;
}

describe("the claim review's decision on each found ACL", () => {
  it("keeps as a subscription, keeps as an exception or removes each ACL; approval waits for it, adopts the accounts and queues the removal", async () => {
    const topic = "legacy.shipments";
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-shipments" });
    const other = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-audit" });
    const found = [
      acl(topic, "User:payments-shipments"), // the account's own principal: kept, now its subscription's grant
      acl(topic, "User:old-report"), // removed
      acl(topic, "User:bi-team", "READ", "PREFIXED", "legacy."), // covers other topics: only an exception
      acl(topic, "User:legacy-audit"), // another principal adopted by a named account: access moves, old ACL removed
      acl(topic, "User:legacy-audit", "WRITE"), // a write grant cannot become a subscription
    ];
    const product = await claimed(topic, found);

    // Approving before the ACLs are decided is refused, naming what is missing.
    await expect(approveProduct(db, ctx.as.reviewer, product.id)).rejects.toMatchObject({ status: 409, code: "CLAIM_ACLS_UNDECIDED", message: expect.stringContaining("Decide each of the 5 ACLs found on legacy.shipments") });

    // Every ACL needs a decision; each kind is checked.
    await expect(decideClaimAcls(db, ctx.as.reviewer, product.id, { decisions: [{ index: 1, decision: "REMOVE" }] })).rejects.toMatchObject({ status: 400, fields: { decisions: ["Decide every ACL found on the topic: 1 of 5 decided."] } });
    const valid = [
      { index: 0, decision: "ADOPT", serviceAccount: "payments-shipments" },
      { index: 1, decision: "REMOVE" },
      { index: 2, decision: "EXCEPTION", reason: "BI reads every legacy topic through one prefix grant until Q2." },
      { index: 3, decision: "ADOPT", serviceAccount: "payments-audit" },
      { index: 4, decision: "REMOVE" },
    ];
    const tryWith = (index: number, change: Record<string, unknown>) => decideClaimAcls(db, ctx.as.reviewer, product.id, { decisions: valid.map((d) => (d.index === index ? { index, ...change } : d)) });
    await expect(tryWith(2, { decision: "REMOVE" })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("covers other topics too") });
    await expect(tryWith(4, { decision: "ADOPT", serviceAccount: "payments-audit" })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("cannot become a subscription") });
    await expect(tryWith(2, { decision: "EXCEPTION", reason: "legacy" })).rejects.toMatchObject({ status: 400, fields: { reason: [expect.stringContaining("at least 10 characters")] } });
    await expect(tryWith(0, { decision: "ADOPT" })).rejects.toMatchObject({ status: 400, fields: { serviceAccount: ["Name a service account."] } });
    await expect(tryWith(0, { decision: "ADOPT", serviceAccount: "payments-nobody" })).rejects.toMatchObject({ status: 400, fields: { serviceAccount: ["No service account payments-nobody."] } });
    await expect(tryWith(0, { decision: "ADOPT", serviceAccount: "orders-producer" })).rejects.toMatchObject({ status: 400 });
    // Only governance decides; nothing was stored by the refused attempts.
    await expect(decideClaimAcls(db, ctx.as.ordersOwner, product.id, { decisions: valid })).rejects.toMatchObject({ status: 403 });
    expect(await db.topicClaim.findUniqueOrThrow({ where: { productId: product.id } })).toMatchObject({ aclDecisions: [], aclsDecidedById: null });

    await decideClaimAcls(db, ctx.as.reviewer, product.id, { decisions: valid });
    const claim = await db.topicClaim.findUniqueOrThrow({ where: { productId: product.id } });
    expect(claim.aclsDecidedById).toBe(ctx.people.reviewer.id);
    expect(claim.removeAcls).toEqual([found[1], found[3], found[4]]);
    expect((claim.aclDecisions as { decision: string; serviceAccountName?: string; domainSlug?: string }[]).map((d) => [d.decision, d.serviceAccountName ?? null, d.domainSlug ?? null])).toEqual([
      ["ADOPT", "payments-shipments", "payments"],
      ["REMOVE", null, null],
      ["EXCEPTION", null, null],
      ["ADOPT", "payments-audit", "payments"],
      ["REMOVE", null, null],
    ]);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "product.claimAclsDecided", entityId: product.id } });
    expect(audit.data).toMatchObject({ remove: 2, adopt: 2, exception: 1 });

    // Until approval the drift view says what will happen to each; the exception is listed with its reason, not flagged.
    const before = await productDrift(db, await actor("reviewer"), product.id);
    expect(before.unknownGrants.map((g) => [g.principal, g.operation, g.why])).toEqual([
      ["User:payments-shipments", "READ", expect.stringMatching(/adopts it as a subscription of payments-shipments, granted when the claim is approved/)],
      ["User:old-report", "READ", expect.stringMatching(/chose to remove it/)],
      ["User:legacy-audit", "READ", expect.stringMatching(/moved this access to a subscription of payments-audit/)],
      ["User:legacy-audit", "WRITE", expect.stringMatching(/chose to remove it/)],
    ]);
    expect(before.grantExceptions).toEqual([expect.objectContaining({ principal: "User:bi-team", patternType: "PREFIXED", resourceName: "legacy.", reason: "BI reads every legacy topic through one prefix grant until Q2.", present: true })]);

    await approveProduct(db, ctx.as.reviewer2, product.id);
    const subs = await db.subscription.findMany({ where: { productId: product.id }, include: { serviceAccount: true }, orderBy: { createdAt: "asc" } });
    expect(subs.map((s) => [s.serviceAccount.name, s.status, s.consumingDomainId, s.decidedById])).toEqual([
      ["payments-shipments", "APPROVED", ctx.payments.id, ctx.people.reviewer2.id],
      ["payments-audit", "APPROVED", ctx.payments.id, ctx.people.reviewer2.id],
    ]);
    expect(subs.map((s) => s.serviceAccountId).sort()).toEqual([account.id, other.id].sort());
    const tasks = await db.provisioningTask.findMany({ where: { entityId: { in: [product.id, ...subs.map((s) => s.id)] } }, orderBy: { createdAt: "asc" } });
    expect(tasks.filter((t) => t.kind === "GRANT_SUBSCRIPTION_ACL").map((t) => t.entityId).sort()).toEqual(subs.map((s) => s.id).sort());
    expect(tasks.find((t) => t.kind === "REMOVE_CLAIMED_ACLS")?.payload).toMatchObject({ topic, bindings: [found[1], found[3], found[4]] });
    // The product page shows each decision with the adopted subscription.
    const page = await getProduct(db, await actor("ordersOwner"), product.id);
    expect((page.claim?.aclDecisions as { subscriptionId?: string }[]).flatMap((d) => (d.subscriptionId ? [d.subscriptionId] : []))).toEqual([subs[0]?.id, subs[1]?.id]);
    // Once granted, the adopted account's ACL is explained by its subscription: only what the worker still removes is flagged.
    const after = await productDrift(db, await actor("ordersOwner"), product.id);
    expect(after.unknownGrants.map((g) => g.principal)).toEqual(["User:old-report", "User:legacy-audit", "User:legacy-audit"]);
    expect(after.grantExceptions).toHaveLength(1);
  });

  it("four eyes: a reviewer who claimed the topic cannot decide its ACLs; a decision is only taken in review", async () => {
    const topic = "legacy.invoices";
    const product = await claimed(topic, [acl(topic, "User:old-invoices")], "reviewer2");
    const decisions = [{ index: 0, decision: "REMOVE" }];
    await expect(decideClaimAcls(db, ctx.as.reviewer2, product.id, { decisions })).rejects.toMatchObject({ status: 403, code: "FOUR_EYES", message: expect.stringContaining("you cannot decide on this claim, which you created") });
    expect((await db.topicClaim.findUniqueOrThrow({ where: { productId: product.id } })).aclsDecidedById).toBeNull();
    await decideClaimAcls(db, ctx.as.reviewer, product.id, { decisions });
    await approveProduct(db, ctx.as.reviewer, product.id);
    await expect(decideClaimAcls(db, ctx.as.reviewer, product.id, { decisions: [{ index: 0, decision: "EXCEPTION", reason: "Changed my mind after approval." }] })).rejects.toMatchObject({ status: 409 });
  });
});
