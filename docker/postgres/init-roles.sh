#!/bin/sh
# Runs once when the postgres container initialises its data directory
# (/docker-entrypoint-initdb.d): the three roles of prisma/database-roles.sql.
# The owner runs migrations (the portal container's start script, as
# DATABASE_URL) and then applies the grants for the portal and the worker.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v owner_pw="$KAPPA_OWNER_DB_PASSWORD" -v portal_pw="$KAPPA_PORTAL_DB_PASSWORD" -v worker_pw="$KAPPA_WORKER_DB_PASSWORD" <<'SQL'
CREATE ROLE kappa_owner  LOGIN PASSWORD :'owner_pw'  NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE kappa_portal LOGIN PASSWORD :'portal_pw' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE kappa_worker LOGIN PASSWORD :'worker_pw' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE DATABASE kappa OWNER kappa_owner;
REVOKE ALL ON DATABASE kappa FROM PUBLIC;
GRANT CONNECT ON DATABASE kappa TO kappa_portal, kappa_worker;
\c kappa
ALTER SCHEMA public OWNER TO kappa_owner;
SQL
