-- Least-privilege grants for Kappa Mesh (issue 8, finding 9). Run as the OWNER
-- role (the one that runs migrations and owns every table), after migrations:
--
--   psql "$OWNER_URL" -v owner=kappa_owner -v portal=kappa_portal -v worker=kappa_worker -f prisma/database-roles.sql
--
-- `npm start` applies this same file itself: on the embedded database always,
-- and with DATABASE_URL whenever PORTAL_DATABASE_URL / WORKER_DATABASE_URL name
-- the portal's and the worker's roles. It is idempotent.
--
-- The roles themselves are created once by a superuser (passwords of your own):
--   CREATE ROLE kappa_owner  LOGIN PASSWORD '...' NOSUPERUSER NOCREATEDB NOCREATEROLE;
--   CREATE ROLE kappa_portal LOGIN PASSWORD '...' NOSUPERUSER NOCREATEDB NOCREATEROLE;
--   CREATE ROLE kappa_worker LOGIN PASSWORD '...' NOSUPERUSER NOCREATEDB NOCREATEROLE;
--   CREATE DATABASE kappa OWNER kappa_owner;
--   REVOKE ALL ON DATABASE kappa FROM PUBLIC;
--   GRANT CONNECT, TEMPORARY ON DATABASE kappa TO kappa_portal, kappa_worker;
--   \c kappa
--   ALTER SCHEMA public OWNER TO kappa_owner;

-- Nobody but the owner creates objects; the apps only use them.
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"portal", :"worker";

-- Tables that exist now: read and write rows, nothing else (no TRUNCATE,
-- REFERENCES, TRIGGER; no DDL since neither owns anything).
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"portal", :"worker";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"portal", :"worker";

-- Tables later migrations create (as the owner) get the same grants by
-- themselves: other areas add tables without touching this file.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"portal", :"worker";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"portal", :"worker";

-- The audit log is append-only for both apps: a trigger refuses UPDATE and
-- DELETE for everyone, and only the owner could disable it.
REVOKE UPDATE, DELETE, TRUNCATE ON "AuditEvent" FROM :"portal", :"worker";

-- Migration bookkeeping is the owner's alone.
REVOKE ALL ON "_prisma_migrations" FROM :"portal", :"worker";

-- What the worker observes on the cluster is written by the worker only: topic
-- and group observations, the cluster scan (unmanaged topics, who reads what),
-- freshness, and the latest-state views' entries and positions (the portal
-- only asks for a rebuild, on "StateView").
REVOKE INSERT, UPDATE, DELETE ON "TopicObservation", "TopicObservationSample", "ConsumerGroupObservation", "ConsumerGroupObservationSample", "ReconcileRun", "WorkerInstance",
  "ClusterTopic", "GroupTopicUsage", "ProductFreshness", "ProductFreshnessSample", "StateEntry", "StateViewPartition", "EnvironmentCredential" FROM :"portal";

-- The usage ledger (showback and chargeback) is computed by the worker from its observations; the portal reads it.
REVOKE INSERT, UPDATE, DELETE ON "UsageRecord" FROM :"portal";

-- The dead-letter topics' offsets (issue 29) are observed by the worker; the portal reads them.
REVOKE INSERT, UPDATE, DELETE ON "DeadLetterSample" FROM :"portal";
-- The brokers each cluster lists and their outages (issue 28) are observed by the worker; the portal reads them.
REVOKE INSERT, UPDATE, DELETE ON "ClusterBroker", "ClusterBrokerOutage" FROM :"portal";
-- Observed quality (issue 29): the worker samples records and counts rule outcomes; the portal reads them.
REVOKE INSERT, UPDATE, DELETE ON "QualitySampleCursor", "QualityObservation" FROM :"portal";
