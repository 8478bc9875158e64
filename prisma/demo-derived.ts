/*
 * The demo's derived product (issue 34): declared once, on the first start
 * with a Flink SQL Gateway up, through the catalog's own actions as a person
 * would — the orders owner writes the statement (Flink's planner derives the
 * schema), submits it, the governance reviewer approves it (four eyes); the
 * worker then provisions the topic and deploys the job. It reads Order Status,
 * the demo's JSON product (Flink's tables here read JSON: the Avro /
 * Confluent-registry format has no 2.2.0 release on Maven Central), so the
 * demo shows a running job, its lineage and its records without anyone typing
 * SQL.
 */
import { approveProduct, registerDerivedProduct, submitForReview, type Db } from "@kappa/catalog";
import { DEMO_USERS } from "./demo-data.ts";

export const DEMO_DERIVED_NAME = "Order Status per Minute";

export const DEMO_DERIVED_STATEMENT = [
  "SELECT window_start AS windowStart, window_end AS windowEnd, status, COUNT(*) AS changes",
  "FROM TABLE(TUMBLE(TABLE `orders.order-status.v1`, DESCRIPTOR(updatedAt), INTERVAL '1' MINUTE))",
  "GROUP BY window_start, window_end, status",
].join("\n");

/** The audit action that marks the demo's derived product as declared (so a deleted or retired one is not declared again). */
export const DEMO_DERIVED_ACTION = "demo.derivedDeclared";

/**
 * Declares, submits and approves the demo's derived product unless that was
 * done before. Returns the product id, or null when there was nothing to do.
 */
export async function declareDemoDerivedProduct(db: Db, flink: { gatewayUrl: string; bootstrap: string }): Promise<string | null> {
  if (await db.auditEvent.findFirst({ where: { action: DEMO_DERIVED_ACTION } })) return null;
  const [owner, reviewer, orders] = await Promise.all([
    db.user.findUnique({ where: { email: DEMO_USERS.ordersOwner.email }, select: { id: true } }),
    db.user.findUnique({ where: { email: DEMO_USERS.reviewer.email }, select: { id: true } }),
    db.domain.findUnique({ where: { slug: "orders" }, select: { id: true } }),
  ]);
  if (!owner || !reviewer || !orders) return null; // not the demo's catalog
  const product = await registerDerivedProduct(
    db,
    { userId: owner.id },
    {
      domainId: orders.id,
      name: DEMO_DERIVED_NAME,
      description: "How many orders changed to each status, per minute: a derived product computed in the stream by Apache Flink from Order Status.",
      classification: "PUBLIC",
      tags: ["orders", "derived", "flink"],
      freshnessSeconds: 120,
      availabilityPct: 99.5,
      partitions: 1,
      contactEmail: DEMO_USERS.ordersOwner.email,
      derived: { statement: DEMO_DERIVED_STATEMENT },
    },
    flink,
  );
  await submitForReview(db, { userId: owner.id }, product.id);
  await approveProduct(db, { userId: reviewer.id }, product.id);
  await db.auditEvent.create({ data: { actorEmail: "system", action: DEMO_DERIVED_ACTION, entityType: "DataProduct", entityId: product.id } });
  return product.id;
}
