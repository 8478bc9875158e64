import pg from "pg";

/*
 * A large catalog built in PostgreSQL itself (generate_series, one INSERT per
 * table), for the catalog benchmark and the EXPLAIN guard test: 100,000
 * products seed in seconds, where going through the actions would take hours.
 * The shape follows a big organisation: 50 domains, 85 % of products ACTIVE,
 * the rest spread over the other states, ~0.3 subscriptions per product, one
 * schema version per product, and names, descriptions and tags drawn from a
 * business vocabulary so that searches have realistic selectivity ("order" in
 * about a quarter of the products, "chargeback" in one in a thousand).
 *
 * Everything is deterministic (hashtext of the row number), so two seeds of
 * the same size are identical and figures compare across runs. Rows get ids
 * `scale-…`; the seed adds to whatever the database holds (the demo data, for
 * example) and refuses to run twice.
 */

export interface ScaleCatalogOptions {
  products: number;
  /** Default 50. */
  domains?: number;
  /** Default products × 0.3. */
  subscriptions?: number;
}

export interface ScaleCatalogResult {
  products: number;
  domains: number;
  subscriptions: number;
  ms: number;
}

/** 50 business domains; none collides with the demo's `orders` and `payments`. */
const DOMAIN_WORDS = [
  "retail", "logistics", "billing", "marketing", "fraud", "risk", "lending", "insurance", "claims", "warehouse",
  "fleet", "supply", "procurement", "catalogue", "pricing", "loyalty", "support", "identity", "security", "analytics",
  "telemetry", "devices", "media", "content", "search", "ads", "growth", "people", "payroll", "finance",
  "treasury", "tax", "compliance", "legal", "travel", "booking", "hotels", "mobility", "energy", "grid",
  "health", "pharmacy", "labs", "learning", "gaming", "social", "messaging", "crm", "erp", "partners",
];

/**
 * 100 weighted slots of what a product is about. "Order" fills 20 of them; the
 * description's "joined with orders" sentence lifts the share of products that
 * mention orders to roughly a quarter.
 */
const ENTITY_SLOTS = [
  ...Array<string>(20).fill("Order"), ...Array<string>(10).fill("Payment"), ...Array<string>(4).fill("Refund"),
  ...Array<string>(8).fill("Customer"), ...Array<string>(6).fill("Shipment"), ...Array<string>(5).fill("Invoice"),
  ...Array<string>(5).fill("Inventory"), ...Array<string>(4).fill("Cart"), ...Array<string>(4).fill("Price"),
  ...Array<string>(4).fill("Account"), ...Array<string>(3).fill("Session"), ...Array<string>(3).fill("Click"),
  ...Array<string>(3).fill("Review"), ...Array<string>(3).fill("Ledger"), ...Array<string>(3).fill("Transfer"),
  ...Array<string>(3).fill("Claim"), ...Array<string>(3).fill("Sensor"), ...Array<string>(3).fill("Booking"),
  ...Array<string>(3).fill("Ticket"), "Referral", "Reference Data", "Refresh Token",
];
const EVENTS = ["Events", "Created", "Updated", "Snapshots", "Changes", "Status", "Metrics", "Audit", "Facts", "Stream"];
const REGIONS = ["EU", "US", "APAC", "Global", "UK", "LATAM", "Nordics", "DACH"];
const TAGS = [
  "events", "state", "core", "pii", "gdpr", "realtime", "batch", "finance", "eu", "us", "apac", "internal", "external",
  "mobile", "web", "backend", "ml", "features", "kpi", "sla-gold", "sla-silver", "legacy", "beta", "cdc", "outbox",
  "avro", "json", "compacted", "replay", "audit", "fraud", "growth", "ops", "partner", "b2b", "b2c", "daily", "hourly",
  "streaming", "derived",
];
const STATUS_BY_PERCENT = "CASE WHEN h < 85 THEN 'ACTIVE' WHEN h < 88 THEN 'DEPRECATED' WHEN h < 91 THEN 'DRAFT' WHEN h < 94 THEN 'IN_REVIEW' WHEN h < 96 THEN 'APPROVED' WHEN h < 98 THEN 'RETIRED' ELSE 'REJECTED' END";

/** The entity's plural as its first tag (`orders`, `inventories`, `refreshes`), as owners tag products. */
const PLURAL_TAG = `(SELECT CASE WHEN e ~ 'y$' THEN regexp_replace(e, 'y$', 'ies') WHEN e ~ '(sh|ch|s)$' THEN e || 'es' ELSE e || 's' END FROM (SELECT lower(split_part(entity, ' ', 1)) AS e) AS t)`;

const sqlArray = (xs: readonly string[]) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(",")}]`;

/** Seeds a scale catalog into the database at `url` (a `postgresql://` URL) and analyses the tables. */
export async function seedScaleCatalog(url: string, options: ScaleCatalogOptions): Promise<ScaleCatalogResult> {
  const started = Date.now();
  const products = options.products;
  const domains = Math.min(options.domains ?? 50, DOMAIN_WORDS.length);
  const subscriptions = options.subscriptions ?? Math.round(products * 0.3);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "Domain" WHERE id LIKE 'scale-%'`);
    if (Number(rows[0]?.n ?? 0) > 0) throw new Error("This database already holds a scale catalog (rows with ids scale-…).");
    await client.query("BEGIN");
    // A stable pseudo-random integer 0..2^31 per (row, salt).
    await client.query(`CREATE TEMP TABLE scale_words AS SELECT ${sqlArray(DOMAIN_WORDS)} AS domains, ${sqlArray(ENTITY_SLOTS)} AS entities, ${sqlArray(EVENTS)} AS events, ${sqlArray(REGIONS)} AS regions, ${sqlArray(TAGS)} AS tags`);
    await client.query(
      `INSERT INTO "User" (id, email, name, "globalRole", "createdAt", "updatedAt")
       VALUES ('scale-user', 'scale-seed@kappa.invalid', 'Scale seed', 'USER', now(), now())`,
    );
    await client.query(
      `INSERT INTO "Domain" (id, slug, name, description, "createdAt", "updatedAt")
       SELECT 'scale-d' || d, w.domains[d], initcap(w.domains[d]), 'Seeded ' || w.domains[d] || ' domain', now(), now()
       FROM scale_words w, generate_series(1, $1::int) AS d`,
      [domains],
    );
    // One producer and five consumer accounts per domain.
    await client.query(
      `INSERT INTO "ServiceAccount" (id, "domainId", name, description, "isProducer", "createdAt")
       SELECT 'scale-a' || d || '-' || k, 'scale-d' || d, w.domains[d] || CASE WHEN k = 0 THEN '-producer' ELSE '-app' || k END, '', k = 0, now()
       FROM scale_words w, generate_series(1, $1::int) AS d, generate_series(0, 5) AS k`,
      [domains],
    );
    // Bulk load, then index: building the search indexes (GIN, GiST) over the
    // loaded rows is several times faster than growing them row by row. The
    // definitions are read back from the catalog, so the rebuilt indexes are
    // exactly the migrations' (constraint indexes stay: they cannot be dropped).
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(
      `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
        WHERE i.schemaname = current_schema() AND i.tablename = 'DataProduct'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    for (const index of indexes) await client.query(`DROP INDEX "${index.name.replace(/"/g, '""')}"`);
    await client.query(
      `INSERT INTO "DataProduct" (id, "domainId", name, slug, description, classification, tags, "freshnessSeconds", "availabilityPct",
         partitions, "retentionMs", "topicName", status, "contactEmail", "createdById", "createdAt", "updatedAt")
       SELECT 'scale-p' || i, 'scale-d' || d, region || ' ' || entity || ' ' || event,
         lower(replace(entity, ' ', '-')) || '-' || lower(event) || '-' || i,
         entity || ' ' || lower(event) || ' published by the ' || w.domains[d] || ' domain for the ' || region || ' region.'
           || CASE WHEN i % 1000 = 7 THEN ' Disputed card payments ending in a chargeback.' ELSE '' END
           || CASE WHEN abs(hashtext(i || 'j')) % 100 < 7 THEN ' Joined with orders for reconciliation.' ELSE '' END
           || CASE WHEN abs(hashtext(i || 'k')) % 100 < 5 THEN ' Includes refunds and returns.' ELSE '' END,
         (ARRAY['PUBLIC','INTERNAL','CONFIDENTIAL','RESTRICTED'])[1 + abs(hashtext(i || 'c')) % 4]::"Classification",
         ARRAY[${PLURAL_TAG}, w.tags[1 + abs(hashtext(i || 't1')) % array_length(w.tags, 1)], w.tags[1 + abs(hashtext(i || 't2')) % array_length(w.tags, 1)]],
         60, 99.9, 3, -1,
         w.domains[d] || '.' || lower(replace(entity, ' ', '-')) || '-' || lower(event) || '-' || i || '.v1',
         (${STATUS_BY_PERCENT})::"ProductStatus",
         'owner@' || w.domains[d] || '.example', 'scale-user',
         now() - make_interval(days => age_days, secs => abs(hashtext(i || 's')) % 86400),
         now() - make_interval(days => age_days * (abs(hashtext(i || 'u')) % 100) / 100, secs => abs(hashtext(i || 'v')) % 86400)
       FROM scale_words w,
         LATERAL generate_series(1, $1::int) AS i,
         LATERAL (SELECT 1 + i % $2::int AS d,
                         CASE WHEN i % 1000 = 7 THEN 'Chargeback' ELSE w.entities[1 + abs(hashtext(i || 'e')) % array_length(w.entities, 1)] END AS entity,
                         w.events[1 + abs(hashtext(i || 'v')) % array_length(w.events, 1)] AS event,
                         w.regions[1 + abs(hashtext(i || 'r')) % array_length(w.regions, 1)] AS region,
                         abs(hashtext(i || 'h')) % 100 AS h,
                         abs(hashtext(i || 'a')) % 730 AS age_days) AS x`,
      [products, domains],
    );
    await client.query("SET LOCAL maintenance_work_mem = '256MB'");
    for (const index of indexes) await client.query(index.definition);
    await client.query(
      `INSERT INTO "SchemaVersion" (id, "productId", version, format, definition, status, "createdAt")
       SELECT 'scale-sv' || i, 'scale-p' || i, 1, 'AVRO',
         '{"type":"record","name":"Event","fields":[{"name":"id","type":"string"},{"name":"at","type":"long"}]}', 'APPROVED', now()
       FROM generate_series(1, $1::int) AS i`,
      [products],
    );
    // Subscriptions spread over products; the consuming account belongs to another domain than the product's.
    await client.query(
      `INSERT INTO "Subscription" (id, "productId", "consumingDomainId", "serviceAccountId", purpose, status, "requestedById", "createdAt", "updatedAt")
       SELECT 'scale-s' || s, 'scale-p' || p, 'scale-d' || cd, 'scale-a' || cd || '-' || (1 + s % 5), 'Seeded subscription',
         (CASE WHEN h < 80 THEN 'ACTIVE' WHEN h < 90 THEN 'REQUESTED' WHEN h < 95 THEN 'REVOKED' ELSE 'REJECTED' END)::"SubscriptionStatus",
         'scale-user', now() - make_interval(days => abs(hashtext(s || 'a')) % 365), now()
       FROM generate_series(1, $1::int) AS s,
         LATERAL (SELECT 1 + abs(hashtext(s || 'p')) % $2::int AS p, abs(hashtext(s || 'h')) % 100 AS h) AS x,
         LATERAL (SELECT 1 + (p % $3::int + 1 + abs(hashtext(s || 'd')) % ($3::int - 1)) % $3::int AS cd) AS y`,
      [subscriptions, products, domains],
    );
    await client.query("COMMIT");
    await client.query(`ANALYZE "User", "Domain", "ServiceAccount", "DataProduct", "SchemaVersion", "Subscription"`);
    return { products, domains, subscriptions, ms: Date.now() - started };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
