import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  claimTopic,
  createServiceAccount,
  decideClaimAcls,
  lineageGraph,
  loadActor,
  productDrift,
  registerProduct,
  requestSubscription,
  submitForReview,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 31, point 2: an ACL on a product's topic that no catalog grant
 * explains shows in the product's drift view and in the lineage's "needs
 * attention" list — whether it came with a claimed topic (until the claim's
 * review decides it) or appeared later on a managed topic.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const acl = (topic: string, principal: string, operation = "READ") => ({ resourceType: "TOPIC", resourceName: topic, patternType: "LITERAL", principal, host: "*", operation, permission: "ALLOW" });
const actor = async (who: keyof typeof ctx.as) => loadActor(db, ctx.as[who].userId);

describe("grants the catalog does not know", () => {
  it("an ACL that appears on a managed topic is in the drift view and the lineage's needs-attention list, for its owners and governance only", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Parcel Events" }));
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-parcels" });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Match parcels with refunds for disputes." });
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    const topic = product.topicName;
    // Standing in for the worker's cluster scan: the producer's and the subscriber's ACLs, and one made by hand.
    await db.clusterTopic.create({
      data: { name: topic, productId: product.id, partitions: 6, acls: [acl(topic, "User:orders-producer", "WRITE"), acl(topic, "User:payments-parcels"), acl(topic, "User:legacy-etl"), acl(topic, "User:legacy-etl", "DESCRIBE")] },
    });

    const drift = await productDrift(db, await actor("ordersOwner"), product.id);
    expect(drift.unknownGrants).toEqual([
      expect.objectContaining({ principal: "User:legacy-etl", operation: "READ", permission: "ALLOW", why: expect.stringMatching(/an ACL made outside Kappa Mesh/) }),
      expect.objectContaining({ principal: "User:legacy-etl", operation: "DESCRIBE" }),
    ]);
    for (const who of ["ordersOwner", "reviewer"] as const) {
      const graph = await lineageGraph(db, await actor(who), {});
      const edge = graph.edges.find((e) => e.kind === "acl");
      expect(edge, who).toMatchObject({ source: `product:${product.id}`, target: "principal:User:legacy-etl", flags: ["unknown-grant"], acl: { operations: ["ALLOW READ", "ALLOW DESCRIBE"] } });
      expect(graph.nodes.find((n) => n.id === "principal:User:legacy-etl")).toMatchObject({ kind: "principal", label: "User:legacy-etl" });
    }
    // The subscribing domain does not see another domain's topic ACLs.
    expect((await lineageGraph(db, await actor("paymentsOwner"), {})).edges.filter((e) => e.kind === "acl")).toEqual([]);

    // Once the subscription ends, its ACL is flagged until the worker removes it.
    await db.subscription.update({ where: { id: sub.id }, data: { status: "REVOKED" } });
    expect((await productDrift(db, await actor("ordersOwner"), product.id)).unknownGrants.find((g) => g.principal === "User:payments-parcels")?.why).toMatch(/subscription has ended/);
  });

  it("a claimed topic's ACLs are flagged until the review decides them; kept ones are documented, removed ones flagged until the worker removes them", async () => {
    const topic = "legacy-returns";
    const found = [acl(topic, "User:returns-app"), acl(topic, "User:old-report")];
    await db.clusterTopic.create({ data: { name: topic, partitions: 3, acls: found } });
    const claimed = await claimTopic(db, ctx.as.ordersOwner, { ...productInput(ctx.orders.id, { name: "Legacy Returns", partitions: 3 }), topic });
    await submitForReview(db, ctx.as.ordersOwner, claimed.id);
    const whyOf = async () => (await productDrift(db, await actor("reviewer"), claimed.id)).unknownGrants.map((g) => [g.principal, g.why]);
    expect(await whyOf()).toEqual([
      ["User:returns-app", expect.stringMatching(/claim's review has not decided it yet/)],
      ["User:old-report", expect.stringMatching(/claim's review has not decided it yet/)],
    ]);
    await decideClaimAcls(db, ctx.as.reviewer, claimed.id, { decisions: [{ index: 0, decision: "EXCEPTION", reason: "The returns app predates the mesh; migrates in Q1." }, { index: 1, decision: "REMOVE" }] });
    expect(await whyOf()).toEqual([["User:old-report", expect.stringMatching(/chose to remove it and the worker has not yet/)]]);
  });
});
