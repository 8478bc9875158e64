// The README's API table is generated from the registry; this fails when they drift.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { apiTableMarkdown, withApiTable } from "../src/api-table.ts";
import { CORE_APIS } from "../src/apis/index.ts";

describe("README", () => {
  it("lists exactly the registry's APIs and versions (run `npm run readme:apis -w packages/broker` after changing them)", () => {
    const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "README.md"), "utf8");
    expect(withApiTable(readme, apiTableMarkdown(CORE_APIS))).toBe(readme);
    for (const api of CORE_APIS) expect(readme).toContain(`| ${api.name} | ${api.apiKey} |`);
  });
});
