// Generates the Prisma client after `npm install` (npm 11 skips
// @prisma/client's own postinstall here). The schema's datasource reads
// DATABASE_URL; `generate` never connects, but without a value the CLI cannot
// read the generator settings and falls back to downloading a native engine.
import { spawnSync } from "node:child_process";

const env = { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://generate@localhost/unused" };
const result = spawnSync("npx", ["prisma", "generate", "--no-hints"], { stdio: "inherit", env });
process.exit(result.status ?? 1);
