/*
 * The demo's constants (accounts, the demo products' schemas, the mark of a
 * completed seed): plain data with no imports, shared by prisma/seed.ts, the
 * demo traffic and `npm start`, which must not load the whole catalog for them.
 */
export const DEMO_PASSWORD = "kappa-demo";

export const DEMO_USERS = {
  ordersOwner: { email: "owner@orders.example", name: "Olivia Orders" },
  paymentsOwner: { email: "owner@payments.example", name: "Paul Payments" },
  ordersMember: { email: "member@orders.example", name: "Mia Member" },
  reviewer: { email: "reviewer@governance.example", name: "Rita Reviewer" },
  admin: { email: "admin@kappa.example", name: "Adam Admin" },
} as const;

const orderEventSchema = JSON.stringify({
  type: "record",
  name: "OrderPlaced",
  namespace: "example.orders",
  fields: [
    { name: "orderId", type: "string" },
    // Personal data (issue 29): tagged PII, so the registry serves the tag and, with the owners' opt-in, encrypts it.
    { name: "customerId", type: "string", pii: true },
    { name: "totalCents", type: "long" },
    { name: "currency", type: "string" },
    { name: "placedAt", type: { type: "long", logicalType: "timestamp-millis" } },
  ],
});

const orderStatusSchema = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["orderId", "status"],
  properties: {
    orderId: { type: "string" },
    status: { enum: ["PLACED", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"] },
    updatedAt: { type: "string", format: "date-time" },
  },
});

const paymentSchema = JSON.stringify({
  type: "record",
  name: "PaymentCaptured",
  namespace: "example.payments",
  fields: [
    { name: "paymentId", type: "string" },
    { name: "orderId", type: "string" },
    { name: "amountCents", type: "long" },
    { name: "cardLast4", type: ["null", "string"], default: null },
    // The capture's event time (Flink's watermark follows an input's first timestamp field): the demo's derived
    // product Revenue per Minute joins payments with their orders on it and windows them per minute.
    { name: "capturedAt", type: { type: "long", logicalType: "timestamp-millis" } },
  ],
});

/** The demo products' schemas, also used by the demo traffic (scripts/demo-traffic.ts) to write valid records. */
export const DEMO_SCHEMAS = { orderEvent: orderEventSchema, orderStatus: orderStatusSchema, payment: paymentSchema } as const;

/** The audit action that marks a completed seed (seedDemoData, and scripts/start.ts's check whether to seed). */
export const SEEDED_ACTION = "demo.seeded";
