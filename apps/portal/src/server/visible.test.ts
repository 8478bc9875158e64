import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Issue 30, finding 9: every route that takes the id of a product,
 * subscription, service account, schema version, change request, promotion,
 * provisioning task or webhook checks that the caller may see it before
 * anything else (visibleActor), so a hidden id answers the 404 of an unknown
 * one. e2e/existence.spec.ts checks the answers over HTTP.
 */

const KINDS: Record<string, string> = {
  products: "product",
  subscriptions: "subscription",
  "service-accounts": "serviceAccount",
  "schema-versions": "schemaVersion",
  "change-requests": "changeRequest",
  promotions: "promotion",
  "provisioning-tasks": "provisioningTask",
  webhooks: "webhook",
};
const API = path.resolve(import.meta.dirname, "../app/api/v1");

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
}

describe("routes with an id check visibility first", () => {
  it("every handler under <collection>/[id] starts from visibleActor of its kind", () => {
    let checked = 0;
    for (const [collection, kind] of Object.entries(KINDS)) {
      for (const file of routeFiles(path.join(API, collection, "[id]"))) {
        const source = readFileSync(file, "utf8");
        const handlers = source.match(/export async function (GET|POST|PUT|PATCH|DELETE)\b/g)?.length ?? 0;
        const visible = source.match(new RegExp(`await visibleActor\\("${kind}", \\(await params\\)\\.id\\)`, "g"))?.length ?? 0;
        expect({ file: path.relative(API, file), handlers, visible, currentActor: source.includes("currentActor(") }).toEqual({ file: path.relative(API, file), handlers, visible: handlers, currentActor: false });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});
