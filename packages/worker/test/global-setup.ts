// The catalog's shared setup: one real PostgreSQL per run (provides pgAdminUrl).
export { default } from "@kappa/catalog/testing/global-setup";
