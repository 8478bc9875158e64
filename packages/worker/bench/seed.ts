/*
 * The worker benchmark's catalog, written with SQL (generate_series) as the
 * approvals would leave it: APPROVED products with their three provisioning
 * steps, APPROVED subscriptions with their grant task. SQL keeps seeding at a
 * few seconds for 10,000 products and keeps the bench process's own memory
 * out of the worker's figure.
 */
import pg from "pg";

export interface WorkerBenchShape {
  products: number;
  partitions: number;
  subscriptionsPerProduct: number;
  domains: number;
  consumersPerDomain: number;
}

export async function seedWorkerBench(url: string, shape: WorkerBenchShape): Promise<{ tasks: number; subscriptions: number }> {
  const { products, partitions, subscriptionsPerProduct: subs, domains, consumersPerDomain: consumers } = shape;
  const accounts = domains * consumers;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query(`INSERT INTO "User" (id, email, name, "globalRole", "updatedAt") VALUES ('bench-reviewer', 'reviewer@bench', 'r', 'GOVERNANCE', now())`);
    await client.query(`INSERT INTO "Domain" (id, slug, name, "updatedAt") SELECT 'd' || d, 'd' || d, 'Domain ' || d, now() FROM generate_series(0, $1::int - 1) d`, [domains]);
    await client.query(`INSERT INTO "ServiceAccount" (id, "domainId", name, "isProducer") SELECT 'd' || d || '-producer', 'd' || d, 'd' || d || '-producer', true FROM generate_series(0, $1::int - 1) d`, [domains]);
    // Consumer account k (0-based, across domains) belongs to domain k % domains.
    await client.query(`INSERT INTO "ServiceAccount" (id, "domainId", name) SELECT 'c' || k, 'd' || (k % $1::int), 'd' || (k % $1::int) || '-app' || (k / $1::int) FROM generate_series(0, $2::int - 1) k`, [domains, accounts]);
    await client.query(
      `INSERT INTO "DataProduct" (id, "domainId", name, slug, description, classification, tags, "freshnessSeconds", "availabilityPct", partitions, "retentionMs", "topicName", status, "contactEmail", "createdById", "updatedAt")
       SELECT 'p' || i, 'd' || (i % $2::int), 'Product ' || i, 'p' || i, 'bench', 'INTERNAL', '{}', 60, 99.9, $3::int, -1, 'd' || (i % $2::int) || '.p' || i || '.v1', 'APPROVED', 'x@bench', 'bench-reviewer', now()
       FROM generate_series(0, $1::int - 1) i`,
      [products, domains, partitions],
    );
    // Subscriber s of product i: consumer account (i·subs + s + consumers) mod accounts — five different accounts per product, spread evenly.
    await client.query(
      `INSERT INTO "Subscription" (id, "productId", "consumingDomainId", "serviceAccountId", purpose, status, "requestedById", "updatedAt")
       SELECT 's' || i || '-' || s, 'p' || i, 'd' || (k % $3::int), 'c' || k, 'bench', 'APPROVED', 'bench-reviewer', now()
       FROM generate_series(0, $1::int - 1) i, generate_series(0, $2::int - 1) s, LATERAL (SELECT (i * $2::int + s + $4::int) % $5::int AS k) x`,
      [products, subs, domains, consumers, accounts],
    );
    const steps = `
      SELECT 'CREATE_TOPIC' AS kind, jsonb_build_object('topic', p."topicName", 'partitions', p.partitions, 'configs', jsonb_build_object('retention.ms', '-1', 'cleanup.policy', 'delete')) AS payload, 1 AS step, p.id
        FROM "DataProduct" p
      UNION ALL
      SELECT 'ENSURE_SERVICE_ACCOUNT', jsonb_build_object('serviceAccountId', a.id, 'username', a.name, 'mechanism', 'SCRAM-SHA-512'), 2, p.id
        FROM "DataProduct" p JOIN "ServiceAccount" a ON a."domainId" = p."domainId" AND a."isProducer"
      UNION ALL
      SELECT 'GRANT_PRODUCER_ACL', jsonb_build_object('principal', 'User:' || a.name, 'topic', p."topicName", 'operations', jsonb_build_array('WRITE', 'DESCRIBE'), 'cluster', jsonb_build_array('IDEMPOTENT_WRITE')), 3, p.id
        FROM "DataProduct" p JOIN "ServiceAccount" a ON a."domainId" = p."domainId" AND a."isProducer"`;
    await client.query(
      `INSERT INTO "ProvisioningTask" (id, kind, payload, "entityType", "entityId", step, "updatedAt")
       SELECT 't-' || kind || '-' || id, kind, payload, 'DataProduct', id, step, now() FROM (${steps}) x`,
    );
    await client.query(
      `INSERT INTO "ProvisioningTask" (id, kind, payload, "entityType", "entityId", step, "updatedAt")
       SELECT 't-grant-' || s.id, 'GRANT_SUBSCRIPTION_ACL',
              jsonb_build_object('subscriptionId', s.id, 'principal', 'User:' || a.name, 'topic', p."topicName", 'topicOperations', jsonb_build_array('READ', 'DESCRIBE'), 'groupPrefix', a.name || '.', 'groupOperations', jsonb_build_array('READ')),
              'Subscription', s.id, 1, now()
         FROM "Subscription" s JOIN "ServiceAccount" a ON a.id = s."serviceAccountId" JOIN "DataProduct" p ON p.id = s."productId"`,
    );
    await client.query("COMMIT");
    await client.query(`ANALYZE`);
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "ProvisioningTask"`);
    return { tasks: Number(rows[0]?.n ?? 0), subscriptions: products * subs };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
