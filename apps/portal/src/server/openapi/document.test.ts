import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document";

const API_DIR = path.resolve(import.meta.dirname, "../../app/api/v1");

/** Every route handler under src/app/api/v1 as "METHOD /path" in OpenAPI form. */
function routesOnDisk(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const route = "/" + path.relative(API_DIR, dir).split(path.sep).filter(Boolean).map((s) => s.replace(/^\[(\w+)\]$/, "{$1}")).join("/");
        for (const m of readFileSync(full, "utf8").matchAll(/export\s+(?:async\s+)?function\s+(GET|POST|PUT|PATCH|DELETE)\b/g)) found.push(`${m[1]} ${route === "/" ? "" : route}`);
      }
    }
  };
  walk(API_DIR);
  return found.sort();
}

describe("OpenAPI document", () => {
  const doc = buildOpenApiDocument();

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("describes every route under src/app/api/v1, and nothing that does not exist", () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    const onDisk = routesOnDisk();
    expect(onDisk.length).toBeGreaterThan(30);
    expect({ missingFromDocument: onDisk.filter((r) => !documented.includes(r)), notARoute: documented.filter((r) => !onDisk.includes(r)) }).toEqual({ missingFromDocument: [], notARoute: [] });
  });

  it("member management is documented for admins and the domain's owners, as the rule is (issue 30, finding 15)", () => {
    const paths = doc.paths as Record<string, Record<string, { summary: string; description?: string }>>;
    for (const [p, m] of [["/domains/{id}/members", "post"], ["/domains/{id}/members/{userId}", "patch"], ["/domains/{id}/members/{userId}", "delete"], ["/domains/{id}/members", "get"]] as const) {
      expect(paths[p]?.[m]?.summary, `${m} ${p}`).toMatch(/domain's owners/);
    }
    expect(paths["/domains/{id}/members"]?.post?.summary).toMatch(/only platform admins may name an e-mail without one/);
    expect(paths["/domains/{id}/members"]?.post?.description).toContain("write:<domain>");
  });

  it("documents the responses the API really gives: requestId in errors, 413 and 431, the audit export as CSV (issue 30, finding 17)", async () => {
    const components = doc.components as { schemas: Record<string, { properties: { error: { properties: Record<string, unknown>; additionalProperties?: unknown } } }> };
    const error = components.schemas.Error?.properties.error;
    expect(error?.properties.requestId).toMatchObject({ type: "string" });
    // Refusals add structured members (retryAfterSeconds, issues): the object must not forbid them.
    expect(error?.additionalProperties).not.toBe(false);
    const { errorResponse } = await import("../http");
    const body = (await (await errorResponse(new Error("boom"))).json()) as { error: Record<string, unknown> };
    for (const key of Object.keys(body.error)) expect(Object.keys(error?.properties ?? {}), key).toContain(key);

    const operations = Object.values(doc.paths as Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>).flatMap((ops) => Object.values(ops));
    for (const op of operations) {
      expect(op.responses["431"]).toBeDefined();
      if (op.requestBody) expect(op.responses["413"]).toBeDefined();
    }
    const exportOp = (doc.paths as Record<string, Record<string, { parameters: { name: string }[]; responses: Record<string, { content: Record<string, unknown> }> }>>)["/audit-events/export"]?.get;
    expect(Object.keys(exportOp?.responses["200"]?.content ?? {}).sort()).toEqual(["application/json", "text/csv"]);
    expect(exportOp?.parameters.map((p) => p.name)).toContain("format");
  });

  it("bodies the handlers parse are documented from the same zod schemas, bounds included (issue 30, finding 18, in part)", async () => {
    const catalog = await import("@kappa/catalog");
    const body = (p: string, m: string) => (doc.paths as Record<string, Record<string, { requestBody: { content: { "application/json": { schema: Record<string, unknown> } } } }>>)[p]?.[m]?.requestBody.content["application/json"].schema;
    const recertify = body("/subscriptions/{id}/recertify", "post") as { properties: { reason: { minLength?: number; maxLength?: number }; decision: { enum: string[] } } };
    // The handler's reason is 5–2000 characters; the hand-written schema said any string.
    expect(recertify.properties.reason).toMatchObject({ minLength: catalog.LIMITS.reasonMin, maxLength: catalog.LIMITS.reasonMax });
    expect(recertify.properties.decision.enum).toEqual(["keep", "revoke"]);
    // A schema text is refused past MAX_SCHEMA_LENGTH whatever zod said: the document states that bound.
    for (const [p, m] of [["/products/{id}/schema-versions", "post"], ["/products/{id}/major-version", "post"]] as const) {
      expect((body(p, m) as { properties: { definition: { maxLength: number } } }).properties.definition.maxLength, `${m} ${p}`).toBe(200_000);
    }
  });

  it("request bodies come from the catalog's zod schemas", () => {
    const paths = doc.paths as Record<string, Record<string, { requestBody?: { content: { "application/json": { schema: { properties: Record<string, { minLength?: number; enum?: string[] }>; required?: string[] } } } } }>>;
    const register = paths["/products"]?.post?.requestBody?.content["application/json"].schema;
    expect(register?.properties.name?.minLength).toBe(3);
    expect(register?.properties.classification?.enum).toEqual(["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"]);
    expect(register?.required).toEqual(expect.arrayContaining(["domainId", "name", "schema"]));
    const token = paths["/tokens"]?.post?.requestBody?.content["application/json"].schema;
    expect(Object.keys(token?.properties ?? {})).toEqual(expect.arrayContaining(["name", "scopes", "expiresInDays"]));
  });
});
