// Regenerates the supported-API table in README.md from the handler registry.
// `npm run readme:apis -w packages/broker` (writes); without --write it prints the table.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { apiTableMarkdown, withApiTable } from "../src/api-table.ts";
import { CORE_APIS } from "../src/apis/index.ts";

const table = apiTableMarkdown(CORE_APIS);
if (process.argv.includes("--write")) {
  const path = join(dirname(fileURLToPath(import.meta.url)), "..", "README.md");
  writeFileSync(path, withApiTable(readFileSync(path, "utf8"), table));
  process.stdout.write(`updated ${path}\n`);
} else {
  process.stdout.write(`${table}\n`);
}
