/*
 * Demo data for the embedded default (demo mode): the four accounts the README
 * lists, two domains, and products and subscriptions in several states (the
 * payments domain's subscription to Order Events with its PII need granted by
 * governance, which the demo's derived product needs: prisma/demo-derived.ts).
 * Every change goes through the catalog's own actions, so the demo obeys the
 * same rules (four eyes, transitions) and leaves a real audit trail.
 */
import {
  approveProduct,
  approveSubscription,
  approveSubscriptionPii,
  createServiceAccount,
  hashPassword,
  registerProduct,
  rejectProduct,
  requestSubscription,
  setQualityRules,
  submitForReview,
  type Db,
} from "@kappa/catalog";
import { DEMO_PASSWORD, DEMO_SCHEMAS, DEMO_USERS, SEEDED_ACTION } from "./demo-data.ts";
import { seedDemoUsage } from "./demo-usage.ts";

// The accounts, schemas and the seed's completion mark are plain constants in
// demo-data.ts, so `npm start` and the demo traffic read them without loading
// the catalog (a restart does not seed).
export { DEMO_PASSWORD, DEMO_SCHEMAS, DEMO_USERS } from "./demo-data.ts";

/**
 * Seeds once: returns false when a completed seed is found. The actions each
 * commit on their own, so completion is marked by a final audit event; a seed
 * interrupted half-way is reported instead of being silently left half-done.
 */
export async function seedDemoData(db: Db): Promise<boolean> {
  if (await db.auditEvent.findFirst({ where: { action: SEEDED_ACTION } })) return false;
  if (await db.user.findUnique({ where: { email: DEMO_USERS.admin.email } })) {
    throw new Error("An earlier demo seed stopped half-way. Remove the data folder (KAPPA_DATA_DIR, default .data) to seed again.");
  }
  const passwordHash = await hashPassword(DEMO_PASSWORD);

  const { orders, payments, users } = await db.$transaction(async (tx) => {
    const orders = await tx.domain.create({ data: { slug: "orders", name: "Orders", description: "Order capture and fulfilment" } });
    const payments = await tx.domain.create({ data: { slug: "payments", name: "Payments", description: "Payment capture, refunds and settlement" } });
    const mk = (u: { email: string; name: string }, globalRole: "USER" | "GOVERNANCE" | "ADMIN" = "USER") =>
      tx.user.create({ data: { ...u, passwordHash, globalRole } });
    const users = {
      ordersOwner: await mk(DEMO_USERS.ordersOwner),
      paymentsOwner: await mk(DEMO_USERS.paymentsOwner),
      ordersMember: await mk(DEMO_USERS.ordersMember),
      reviewer: await mk(DEMO_USERS.reviewer, "GOVERNANCE"),
      admin: await mk(DEMO_USERS.admin, "ADMIN"),
    };
    await tx.membership.createMany({
      data: [
        { userId: users.ordersOwner.id, domainId: orders.id, role: "OWNER" },
        { userId: users.paymentsOwner.id, domainId: payments.id, role: "OWNER" },
        { userId: users.ordersMember.id, domainId: orders.id, role: "MEMBER" },
      ],
    });
    return { orders, payments, users };
  });
  const as = (u: { id: string }) => ({ userId: u.id });
  const owner = as(users.ordersOwner);
  const payer = as(users.paymentsOwner);
  const reviewer = as(users.reviewer);

  const sla = { freshnessSeconds: 60, availabilityPct: 99.9 };
  const orderEvents = await registerProduct(db, owner, {
    domainId: orders.id,
    name: "Order Events",
    description: "Every order placed in the web shop and the mobile app, as it happens. Replayable from the first order.",
    // customerId is tagged PII, and a product with PII fields is CONFIDENTIAL or above (policy pii.classification).
    classification: "CONFIDENTIAL",
    tags: ["orders", "events", "core"],
    ...sla,
    partitions: 6,
    contactEmail: DEMO_USERS.ordersOwner.email,
    tieredStorage: true,
    // A short hot window, so the demo's traffic moves to the object store
    // within minutes of the first start (the tiered-storage panel shows it).
    localRetentionMs: 120_000,
    schema: { format: "AVRO", definition: DEMO_SCHEMAS.orderEvent },
  });
  // A data-quality rule in the contract (issue 29): set on the draft, so it is approved with the product and the
  // worker provisions the dead-letter topic orders.order-events.v1.dlq with the topic. With it the owners' opt-in to
  // field-level encryption: the registry serves the ENCRYPT rule for customerId (tagged PII), so the demo traffic's
  // serializer encrypts it (scripts/demo-traffic.ts).
  await setQualityRules(db, owner, orderEvents.id, {
    rules: [{ name: "non-negative-total", description: "An order's total is never below zero.", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "DLQ" }],
    encryptPii: true,
  });
  await submitForReview(db, owner, orderEvents.id);
  await approveProduct(db, reviewer, orderEvents.id);

  const orderStatus = await registerProduct(db, owner, {
    domainId: orders.id,
    name: "Order Status",
    description: "Latest status per order (compacted): the current state of every order, keyed by order id.",
    classification: "PUBLIC",
    tags: ["orders", "state"],
    ...sla,
    partitions: 3,
    cleanupPolicy: "compact",
    keyFields: ["orderId"],
    contactEmail: DEMO_USERS.ordersOwner.email,
    schema: { format: "JSON_SCHEMA", definition: DEMO_SCHEMAS.orderStatus },
  });
  await submitForReview(db, owner, orderStatus.id);
  await approveProduct(db, reviewer, orderStatus.id);

  const returns = await registerProduct(db, owner, {
    domainId: orders.id,
    name: "Returns",
    description: "Returned items with reason codes; still being designed with the warehouse team.",
    classification: "INTERNAL",
    tags: ["orders", "returns"],
    ...sla,
    partitions: 3,
    contactEmail: DEMO_USERS.ordersOwner.email,
    schema: { format: "JSON_SCHEMA", definition: DEMO_SCHEMAS.orderStatus },
  });
  void returns; // stays a DRAFT

  const customerOrders = await registerProduct(db, owner, {
    domainId: orders.id,
    name: "Customer Orders PII",
    description: "Orders joined with customer contact details, for fraud screening only.",
    classification: "CONFIDENTIAL",
    tags: ["orders", "pii"],
    ...sla,
    partitions: 3,
    retentionMs: 30 * 24 * 3_600_000,
    contactEmail: DEMO_USERS.ordersOwner.email,
    schema: { format: "AVRO", definition: DEMO_SCHEMAS.orderEvent },
  });
  await submitForReview(db, owner, customerOrders.id); // waits in the review queue

  const paymentsCaptured = await registerProduct(db, payer, {
    domainId: payments.id,
    name: "Payments Captured",
    description: "Captured card and wallet payments per order; card numbers are never included.",
    classification: "CONFIDENTIAL",
    tags: ["payments", "events"],
    freshnessSeconds: 30,
    availabilityPct: 99.95,
    partitions: 6,
    contactEmail: DEMO_USERS.paymentsOwner.email,
    schema: { format: "AVRO", definition: DEMO_SCHEMAS.payment },
  });
  await submitForReview(db, payer, paymentsCaptured.id);
  await approveProduct(db, reviewer, paymentsCaptured.id);

  const refunds = await registerProduct(db, payer, {
    domainId: payments.id,
    name: "Refunds",
    description: "Refunds issued, with free-text notes from the support agent.",
    classification: "RESTRICTED",
    tags: ["payments"],
    ...sla,
    partitions: 1,
    // RESTRICTED data is never kept forever (policy rule topic.retention).
    retentionMs: 90 * 24 * 3_600_000,
    contactEmail: DEMO_USERS.paymentsOwner.email,
    schema: { format: "AVRO", definition: DEMO_SCHEMAS.payment },
  });
  await submitForReview(db, payer, refunds.id);
  await rejectProduct(db, reviewer, refunds.id, { reason: "Free-text notes may contain personal data; drop the field or mask it." });

  const reconciliation = await createServiceAccount(db, payer, {
    domainId: payments.id,
    name: "payments-reconciliation",
    description: "Matches payments with orders",
  });
  // With a stated need for personal data, granted by governance (four eyes: not the payments owner who asked): the
  // payments domain reads Order Events whole, which its derived product Revenue per Minute needs — a derived product
  // reads every field of its inputs, so one with PII fields needs the PII grant (prisma/demo-derived.ts).
  const reconSub = await requestSubscription(db, payer, {
    productId: orderEvents.id,
    serviceAccountId: reconciliation.id,
    purpose: "Match every captured payment with its order for daily reconciliation.",
    piiNeeded: true,
    piiJustification: "Disputed payments are matched to the customer who placed the order.",
  });
  await approveSubscription(db, owner, reconSub.id);
  await approveSubscriptionPii(db, reviewer, reconSub.id);
  await requestSubscription(db, payer, {
    productId: orderStatus.id,
    serviceAccountId: reconciliation.id,
    purpose: "Show order status next to payments in the finance dashboard.",
  });
  // A month and more of usage history for the Costs page (showback and chargeback).
  const GB = 1e9;
  await seedDemoUsage(db, [
    { id: orderEvents.id, domainId: orders.id, partitions: 6, bytesPerDay: 6 * GB, localStart: 2 * GB, localShare: 0, tiered: true, readers: [{ subscriptionId: reconSub.id, domainId: payments.id, ratio: 1.4 }] },
    { id: orderStatus.id, domainId: orders.id, partitions: 3, bytesPerDay: 1.5 * GB, localStart: 20 * GB, localShare: 0.05, tiered: false, readers: [] },
    { id: paymentsCaptured.id, domainId: payments.id, partitions: 6, bytesPerDay: 2.5 * GB, localStart: 15 * GB, localShare: 1, tiered: false, readers: [] },
  ]);
  await db.auditEvent.create({ data: { actorEmail: "system", action: SEEDED_ACTION, entityType: "Domain", entityId: orders.id } });
  return true;
}
