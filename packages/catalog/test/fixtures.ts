import { inject } from "vitest";
import type { Db } from "../src/db.ts";
import { approveProduct, registerProduct, submitForReview } from "../src/index.ts";
import type { RecordSource, SourceRecord } from "../src/records/source.ts";
import { createTestDatabase } from "../src/testing/database.ts";

export async function openTestDatabase() {
  return createTestDatabase(inject("pgAdminUrl"));
}

export const avroSchema = JSON.stringify({ type: "record", name: "OrderPlaced", fields: [{ name: "orderId", type: "string" }] });

/** Two domains with an owner each, a member, a reviewer, a second reviewer and an admin. */
export async function seedPeople(db: Db) {
  const orders = await db.domain.create({ data: { slug: "orders", name: "Orders" } });
  const payments = await db.domain.create({ data: { slug: "payments", name: "Payments" } });
  const user = (email: string, globalRole: "USER" | "GOVERNANCE" | "ADMIN" = "USER") =>
    db.user.create({ data: { email, name: email.split("@")[0] ?? email, globalRole } });
  const people = {
    ordersOwner: await user("owner@orders.test"),
    paymentsOwner: await user("owner@payments.test"),
    paymentsMember: await user("member@payments.test"),
    reviewer: await user("reviewer@gov.test", "GOVERNANCE"),
    reviewer2: await user("reviewer2@gov.test", "GOVERNANCE"),
    admin: await user("admin@kappa.test", "ADMIN"),
  };
  await db.membership.createMany({
    data: [
      { userId: people.ordersOwner.id, domainId: orders.id, role: "OWNER" },
      { userId: people.paymentsOwner.id, domainId: payments.id, role: "OWNER" },
      { userId: people.paymentsMember.id, domainId: payments.id, role: "MEMBER" },
    ],
  });
  const as = Object.fromEntries(Object.entries(people).map(([k, v]) => [k, { userId: v.id }])) as Record<keyof typeof people, { userId: string }>;
  return { orders, payments, people, as };
}

export function productInput(domainId: string, overrides: Record<string, unknown> = {}) {
  return {
    domainId,
    name: "Order Events",
    description: "Every order placed, as it happens.",
    classification: "INTERNAL",
    tags: ["orders"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 6,
    contactEmail: "owner@orders.test",
    schema: { format: "AVRO", definition: avroSchema },
    ...overrides,
  };
}

/**
 * A one-partition topic held in `records` (read at each call, so records pushed later are seen), for the record
 * readers' tests: the message browser, the DLQ panel, the rule test. The real broker's reader is the worker's and
 * the journeys'.
 */
export function recordsSource(records: readonly SourceRecord[]): RecordSource {
  return {
    bounds: async () => [{ partition: 0, earliest: 0n, end: BigInt(records.length) }],
    offsetsForTimestamp: async () => new Map([[0, 0n]]),
    read: async (_topic, _partition, from) => ({ records: records.filter((r) => r.offset >= from), next: BigInt(records.length), end: BigInt(records.length), undecodable: null }),
  };
}

/** A product registered by `owner`, approved by the reviewer and ACTIVE with its provisioning done, as the worker leaves it. */
export async function activeProduct(db: Db, reviewer: { userId: string }, domainId: string, owner: { userId: string }, name: string, overrides: Record<string, unknown> = {}) {
  const p = await registerProduct(db, owner, productInput(domainId, { name, ...overrides }));
  await submitForReview(db, owner, p.id);
  await approveProduct(db, reviewer, p.id);
  await db.provisioningTask.updateMany({ where: { entityId: p.id }, data: { status: "DONE" } });
  return db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
}
