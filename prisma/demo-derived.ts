/*
 * The demo's derived product (issue 34), Revenue per Minute: declared once, on
 * the first start with a Flink SQL Gateway up, through the catalog's own
 * actions as a person would — the payments owner writes the statement (Flink's
 * planner derives the schema), submits it, the governance reviewer approves it
 * (four eyes); the worker then provisions the topic and deploys the job as a
 * service account of the payments domain. The statement joins Order Events
 * (orders, Avro, customerId tagged PII and field-encrypted) with the payments
 * domain's own Payments Captured (Avro) — both written by the demo traffic in
 * Confluent's wire format, which Flink's `avro-confluent` format reads through
 * the portal's registry — and sums the captured amounts per currency and
 * minute, so the demo shows a running job, its lineage and its records
 * without anyone typing SQL. Reading Order Events needs the payments domain's
 * subscription to it with its PII need granted (a derived product reads every
 * field of its inputs): the seed grants it (prisma/seed.ts).
 *
 * A data folder seeded by an earlier demo declared "Order Status per Minute"
 * (Flink SQL over the JSON product Order Status) and keeps it: the audit
 * marker below stops a second declaration, and the launcher says so. A folder
 * whose seed predates Revenue per Minute but declared nothing yet (Flink was
 * off) is told what it lacks instead of getting Flink's error.
 */
import { approveProduct, registerDerivedProduct, submitForReview, type Db } from "@kappa/catalog";
import { DEMO_USERS } from "./demo-data.ts";

export const DEMO_DERIVED_NAME = "Revenue per Minute";

/** Its inputs, named by topic as the statement names them. */
export const DEMO_DERIVED_INPUTS = { orderEvents: "orders.order-events.v1", paymentsCaptured: "payments.payments-captured.v1" } as const;

/**
 * Revenue per currency and minute of capture: each payment joined with its
 * order (an interval join on orderId, the capture within a minute of the
 * order — the demo captures at once — so that Flink holds the join's output
 * watermark back by a minute only), then a one-minute tumbling window on the
 * capture time. Avro's timestamp-millis is a TIMESTAMP(3) in Flink's
 * avro-confluent format; the interval join keeps both inputs' time attributes,
 * so the window can follow capturedAt. Append-only: each window is written
 * once, when the watermark passes its end.
 */
export const DEMO_DERIVED_STATEMENT = [
  "SELECT window_start AS windowStart, window_end AS windowEnd, currency, COUNT(*) AS payments, SUM(amountCents) AS revenueCents",
  "FROM TABLE(TUMBLE((",
  "  SELECT p.capturedAt, o.currency, p.amountCents",
  `  FROM \`${DEMO_DERIVED_INPUTS.orderEvents}\` o`,
  `  JOIN \`${DEMO_DERIVED_INPUTS.paymentsCaptured}\` p`,
  "    ON p.orderId = o.orderId AND p.capturedAt BETWEEN o.placedAt AND o.placedAt + INTERVAL '1' MINUTE",
  "), DESCRIPTOR(capturedAt), INTERVAL '1' MINUTE))",
  "GROUP BY window_start, window_end, currency",
].join("\n");

/** The audit action that marks the demo's derived product as declared (so a deleted or retired one is not declared again). */
export const DEMO_DERIVED_ACTION = "demo.derivedDeclared";

export type DemoDerivedOutcome =
  /** Declared, submitted and approved now. */
  | { kind: "declared"; productId: string }
  /** Declared on an earlier start: `name` is the product's (an earlier demo's when it is not DEMO_DERIVED_NAME). */
  | { kind: "declared-before"; name: string | null }
  /** The catalog's seed predates Revenue per Minute: what it lacks. */
  | { kind: "seed-predates"; reason: string }
  /** Not the demo's catalog. */
  | { kind: "not-demo" };

/** Declares, submits and approves the demo's derived product unless that was done before; says what it did. */
export async function declareDemoDerivedProduct(db: Db, flink: { gatewayUrl: string; bootstrap: string }): Promise<DemoDerivedOutcome> {
  const marker = await db.auditEvent.findFirst({ where: { action: DEMO_DERIVED_ACTION }, select: { entityId: true } });
  if (marker) {
    const product = await db.dataProduct.findUnique({ where: { id: marker.entityId }, select: { name: true } });
    return { kind: "declared-before", name: product?.name ?? null };
  }
  const [owner, reviewer, payments, orderEvents, paymentsCaptured] = await Promise.all([
    db.user.findUnique({ where: { email: DEMO_USERS.paymentsOwner.email }, select: { id: true } }),
    db.user.findUnique({ where: { email: DEMO_USERS.reviewer.email }, select: { id: true } }),
    db.domain.findUnique({ where: { slug: "payments" }, select: { id: true } }),
    db.dataProduct.findUnique({ where: { topicName: DEMO_DERIVED_INPUTS.orderEvents }, select: { id: true } }),
    db.dataProduct.findUnique({ where: { topicName: DEMO_DERIVED_INPUTS.paymentsCaptured }, select: { schemaVersions: { where: { status: "APPROVED" }, orderBy: { version: "desc" }, take: 1, select: { definition: true } } } }),
  ]);
  if (!owner || !reviewer || !payments || !orderEvents || !paymentsCaptured) return { kind: "not-demo" };
  const lacks: string[] = [];
  const paymentFields = (JSON.parse(paymentsCaptured.schemaVersions[0]?.definition ?? "{}") as { fields?: { name: string }[] }).fields ?? [];
  if (!paymentFields.some((f) => f.name === "capturedAt")) lacks.push("Payments Captured's approved schema has no event time (capturedAt)");
  const granted = await db.subscription.findFirst({ where: { productId: orderEvents.id, consumingDomainId: payments.id, status: { in: ["APPROVED", "ACTIVE"] }, environment: null, piiApprovedAt: { not: null } }, select: { id: true } });
  if (!granted) lacks.push("the payments domain's subscription to Order Events has no PII approval");
  if (lacks.length > 0) return { kind: "seed-predates", reason: lacks.join(", and ") };

  const product = await registerDerivedProduct(
    db,
    { userId: owner.id },
    {
      domainId: payments.id,
      name: DEMO_DERIVED_NAME,
      description: "Captured revenue per currency and minute: every payment joined with its order in the stream by Apache Flink (Order Events with Payments Captured), summed per minute of capture.",
      // At least the most sensitive input's classification (both are CONFIDENTIAL); its schema holds no PII field.
      classification: "CONFIDENTIAL",
      tags: ["payments", "revenue", "derived", "flink"],
      // A window is written once the join's watermark (a minute behind, plus 5 s of lateness) passes its end.
      freshnessSeconds: 180,
      availabilityPct: 99.5,
      partitions: 1,
      contactEmail: DEMO_USERS.paymentsOwner.email,
      derived: { statement: DEMO_DERIVED_STATEMENT },
    },
    flink,
  );
  await submitForReview(db, { userId: owner.id }, product.id);
  await approveProduct(db, { userId: reviewer.id }, product.id);
  await db.auditEvent.create({ data: { actorEmail: "system", action: DEMO_DERIVED_ACTION, entityType: "DataProduct", entityId: product.id } });
  return { kind: "declared", productId: product.id };
}
