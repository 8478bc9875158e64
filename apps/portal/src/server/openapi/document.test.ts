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

describe("the document states the text rules every request is checked by (issue 30, findings 18 and 19)", () => {
  const doc = buildOpenApiDocument();
  type Node = Record<string, unknown>;
  const components = (doc.components as { schemas: Record<string, Node> }).schemas;
  const operations = Object.entries(doc.paths as Record<string, Record<string, Node>>).flatMap(([p, ops]) => Object.entries(ops).map(([m, op]) => ({ label: `${m.toUpperCase()} ${p}`, op })));

  /** Every schema node under `node` (following $refs into components once), with where it is. */
  function* nodes(node: unknown, where: string, seen = new Set<string>()): Generator<{ where: string; node: Node }> {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) yield* nodes(item, `${where}[${i}]`, seen);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const n = node as Node;
    if (typeof n.$ref === "string") {
      const id = n.$ref.replace("#/components/schemas/", "");
      if (!seen.has(id)) yield* nodes(components[id], `${where}→${id}`, new Set([...seen, id]));
      return;
    }
    yield { where, node: n };
    for (const [key, value] of Object.entries(n)) {
      if (key === "properties" || key === "patternProperties") for (const [name, sub] of Object.entries(value as Node)) yield* nodes(sub, `${where}.${name}`, seen);
      else if (typeof value === "object") yield* nodes(value, `${where}/${key}`, seen);
    }
  }

  it("every request text states a pattern and every request object the rule for its field names", () => {
    const missing: string[] = [];
    for (const { label, op } of operations) {
      const body = (op.requestBody as { content: Record<string, { schema: unknown }> } | undefined)?.content["application/json"]?.schema;
      const params = ((op.parameters ?? []) as { name: string; schema: unknown }[]).map((p) => ({ name: p.name, schema: p.schema }));
      for (const { where, node } of [...nodes(body, `${label} body`), ...params.flatMap((p) => [...nodes(p.schema, `${label} ${p.name}`)])]) {
        const types = Array.isArray(node.type) ? node.type : [node.type];
        if (types.includes("string") && node.enum === undefined && node.const === undefined && node.format === undefined && typeof node.pattern !== "string") missing.push(`${where}: no pattern`);
        if (types.includes("object") && !(node.propertyNames as Node | undefined)?.pattern) missing.push(`${where}: no propertyNames`);
        const extra = node.additionalProperties as Node | boolean | undefined;
        if (types.includes("object") && extra !== false && (typeof extra !== "object" || Object.keys(extra).length === 0)) missing.push(`${where}: any value in fields it does not name`);
        // `$` also matches before a final line break in Python's regex (the generators'): patterns end with (?![\s\S]) instead.
        if (typeof node.pattern === "string" && node.pattern.endsWith("$") && !node.pattern.endsWith("\\$")) missing.push(`${where}: pattern ends with $`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("a product's texts: controls and lone surrogates refused, one-line names refuse line breaks, a description refuses white space alone", () => {
    const register = ((doc.paths as Record<string, Record<string, Node>>)["/products"]!.post!.requestBody as { content: Record<string, { schema: Node }> }).content["application/json"]!.schema;
    const props = register.properties as Record<string, { pattern: string }>;
    const name = new RegExp(props.name!.pattern, "u");
    const description = new RegExp(props.description!.pattern, "u");
    expect([name.test("Order Events"), name.test("Order\u0006Events"), name.test("Order\nEvents"), name.test("Orders 🚀")]).toEqual([true, false, false, true]);
    // Lone surrogates: said in the description (a pattern cannot name them).
    expect(String((doc.info as { description: string }).description)).toContain("lone UTF-16 surrogate");
    expect([description.test("Every order placed."), description.test("Every order\nplaced."), description.test(" ".repeat(12)), description.test("a\u0085 b c d e f g")]).toEqual([true, true, false, false]);
    expect(register.propertyNames).toEqual({ pattern: expect.any(String) });
    expect(new RegExp((register.propertyNames as { pattern: string }).pattern, "u").test("na\u0000me")).toBe(false);
  });

  it("query and path parameters refuse C1 controls too", () => {
    const search = ((doc.paths as Record<string, Record<string, Node>>)["/products"]!.get!.parameters as { name: string; schema: { pattern: string } }[]).find((p) => p.name === "domain")!;
    const pattern = new RegExp(search.schema.pattern, "u");
    expect([pattern.test("orders"), pattern.test("orders\u0085"), pattern.test("orders\u0007")]).toEqual([true, false, false]);
  });
});
