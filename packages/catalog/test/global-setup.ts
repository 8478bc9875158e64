// One real PostgreSQL for the whole run (provides pgAdminUrl); see src/testing/global-setup.ts.
export { default } from "../src/testing/global-setup.ts";
