-- Principal namespaces (issue 8, findings 1–3): reserved Kafka principals,
-- editors for four eyes, sign-in throttling, and a data migration that moves
-- every existing service account into its domain's namespace.

-- CreateEnum
CREATE TYPE "ReservedPrincipalMatch" AS ENUM ('EXACT', 'PREFIX');

-- CreateTable
CREATE TABLE "ReservedPrincipal" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "match" "ReservedPrincipalMatch" NOT NULL DEFAULT 'EXACT',
    "reason" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReservedPrincipal_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ReservedPrincipal_name_match_key" ON "ReservedPrincipal"("name", "match");

-- CreateTable
CREATE TABLE "SignInThrottle" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "firstFailureAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastFailureAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "blockedUntil" TIMESTAMP(3),

    CONSTRAINT "SignInThrottle_pkey" PRIMARY KEY ("key")
);

-- AlterTable
ALTER TABLE "DataProduct" ADD COLUMN "editorIds" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "ServiceAccount" ADD COLUMN "previousName" TEXT;
ALTER TABLE "Subscription" ADD COLUMN "editorIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Seed: what the platform and Kafka treat specially. The worker adds its own
-- admin user and the cluster's super.users when it starts (source 'worker').
INSERT INTO "ReservedPrincipal" ("id", "name", "match", "reason", "source") VALUES
  ('reserved-anonymous', 'ANONYMOUS', 'EXACT', 'Kafka''s principal for unauthenticated clients', 'platform'),
  ('reserved-kappa-prefix', 'kappa-', 'PREFIX', 'Platform principals (the worker''s admin user, the message browser''s reader, ...)', 'platform'),
  ('reserved-kappa-admin', 'kappa-admin', 'EXACT', 'The worker''s default Kafka admin user (KAFKA_ADMIN_USER)', 'platform');

-- ---------------------------------------------------------------------------
-- Data migration: every service account is `<domain-slug>-<name>`, without
-- ".", not reserved, not inside a longer domain slug's namespace, and only the
-- platform's producer account is called `<slug>-producer`. Accounts that break
-- a rule are renamed (old name kept in "previousName", an audit event each);
-- their credentials are cleared so the worker issues new ones for the new
-- principal. The old principal stays on the cluster untouched: the worker
-- never alters a principal the catalog does not own (see README, "Principals
-- renamed by the naming migration").

CREATE FUNCTION pg_temp.kappa_account_name_ok(account_name TEXT, account_domain TEXT, account_is_producer BOOLEAN) RETURNS BOOLEAN AS $$
DECLARE
  own_slug TEXT;
BEGIN
  SELECT slug INTO own_slug FROM "Domain" WHERE id = account_domain;
  IF account_name !~ '^[a-z0-9][a-z0-9_-]{1,62}[a-z0-9]$' THEN RETURN FALSE; END IF;
  IF left(account_name, length(own_slug) + 1) <> own_slug || '-' OR length(account_name) <= length(own_slug) + 1 THEN RETURN FALSE; END IF;
  IF (account_name = own_slug || '-producer') <> account_is_producer THEN RETURN FALSE; END IF;
  IF EXISTS (SELECT 1 FROM "Domain" d WHERE d.id <> account_domain AND length(d.slug) > length(own_slug)
             AND left(account_name, length(d.slug) + 1) = d.slug || '-') THEN RETURN FALSE; END IF;
  IF EXISTS (SELECT 1 FROM "ReservedPrincipal" r WHERE
               (r."match" = 'EXACT' AND lower(account_name) = lower(r.name))
            OR (r."match" = 'PREFIX' AND left(lower(account_name), length(r.name)) = lower(r.name))) THEN RETURN FALSE; END IF;
  RETURN TRUE;
END;
$$ LANGUAGE plpgsql;

DO $$
DECLARE
  a RECORD;
  own_slug TEXT;
  cleaned TEXT;
  candidate TEXT;
BEGIN
  FOR a IN SELECT sa.id, sa.name, sa."domainId", sa."isProducer" FROM "ServiceAccount" sa ORDER BY sa."createdAt", sa.id LOOP
    CONTINUE WHEN pg_temp.kappa_account_name_ok(a.name, a."domainId", a."isProducer");
    SELECT slug INTO own_slug FROM "Domain" WHERE id = a."domainId";
    IF a."isProducer" THEN
      candidate := own_slug || '-producer';
    ELSE
      cleaned := trim(BOTH '-_' FROM regexp_replace(lower(a.name), '[^a-z0-9_-]+', '-', 'g'));
      candidate := CASE WHEN left(cleaned, length(own_slug) + 1) = own_slug || '-' THEN cleaned ELSE own_slug || '-' || cleaned END;
      candidate := trim(BOTH '-_' FROM left(candidate, 64));
      IF NOT pg_temp.kappa_account_name_ok(candidate, a."domainId", FALSE) THEN
        candidate := own_slug || '-renamed-' || left(md5(a.id), 10);
      END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM "ServiceAccount" WHERE name = candidate AND id <> a.id) THEN
      candidate := left(candidate, 56) || '-' || left(md5(a.id), 7);
    END IF;
    UPDATE "ServiceAccount"
       SET name = candidate, "previousName" = a.name,
           "secretHash" = NULL, "secretIssuedAt" = NULL, "secretCiphertext" = NULL
     WHERE id = a.id;
    INSERT INTO "AuditEvent" ("actorId", "actorEmail", "action", "entityType", "entityId", "data")
    VALUES (NULL, 'migration', 'serviceAccount.renamed', 'ServiceAccount', a.id,
            jsonb_build_object('from', a.name, 'to', candidate,
                               'reason', 'naming rules: <domain-slug>-<name>, no ".", not reserved, producer names are the platform''s',
                               'operator', 'the old principal User:' || a.name || ' keeps its SCRAM credentials and ACLs on the cluster until an operator removes them'));
  END LOOP;
END;
$$;

-- A domain whose producer name was squatted by another domain never got a
-- producer of its own: give every domain with live products its producer
-- (the worker's reconcile issues its credentials and WRITE grants).
INSERT INTO "ServiceAccount" ("id", "domainId", "name", "description", "isProducer")
SELECT 'migr' || left(md5(d.id || clock_timestamp()::text), 21), d.id, d.slug || '-producer', 'Producer account of the ' || d.name || ' domain', TRUE
  FROM "Domain" d
 WHERE EXISTS (SELECT 1 FROM "DataProduct" p WHERE p."domainId" = d.id AND p.status IN ('APPROVED', 'PROVISIONING', 'ACTIVE', 'DEPRECATED'))
   AND NOT EXISTS (SELECT 1 FROM "ServiceAccount" s WHERE s."domainId" = d.id AND s."isProducer")
   AND NOT EXISTS (SELECT 1 FROM "ServiceAccount" s WHERE s.name = d.slug || '-producer');

DROP FUNCTION pg_temp.kappa_account_name_ok(TEXT, TEXT, BOOLEAN);
