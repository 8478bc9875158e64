import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as catalog from "@kappa/catalog";
import { buildOpenApiDocument, guardedParam, requestSchemaOf, ROUTES, type RouteDoc } from "./document";

/*
 * Issue 30, finding 18: "one zod schema must produce both the validation and
 * the document". For every operation whose handler passes the request's body
 * (`readJson(request)`) or query (`queryObject(request)`) to a catalog action,
 * this finds — in the sources — the zod schema that action parses its input
 * with (`parseInput(<schema>, …)`), and checks that the document describes the
 * body or query with that very schema object, and that the document's request
 * schema is what zod derives from it. A handler that reads a body the document
 * does not describe (or the reverse) fails here too.
 */
const API_DIR = path.resolve(import.meta.dirname, "../../app/api/v1");
const CATALOG_SRC = path.resolve(import.meta.dirname, "../../../../../packages/catalog/src");

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path.join(dir, e.name)] : []));
}

/** `[export] [async] function name(` … up to the next top-level function: the function's text. */
function functionText(source: string, name: string): string | null {
  const start = source.search(new RegExp(`(?:^|\\n)(?:export\\s+)?(?:async\\s+)?function\\*?\\s+${name}\\s*[(<]`));
  if (start < 0) return null;
  const rest = source.slice(start + 1);
  const end = rest.search(/\n(?:export\s|(?:async\s+)?function\s)/);
  return end < 0 ? rest : rest.slice(0, end);
}

const catalogSources = walk(CATALOG_SRC).map((file) => readFileSync(file, "utf8"));

/**
 * The schema identifier a catalog function parses its input with
 * (`parseInput(x, …)`, `x.safeParse(…)`), following functions it hands its
 * raw input on to (`rawInput`), a few levels deep.
 */
function schemaParsedBy(action: string, depth = 0): string | null {
  for (const source of catalogSources) {
    const body = functionText(source, action);
    if (!body) continue;
    const own = /parseInput\(\s*(\w+)/.exec(body) ?? /(\w+)\.safeParse\(/.exec(body);
    if (own?.[1]) return own[1];
    if (depth >= 3) return null;
    for (const call of body.matchAll(/\b(\w+)\([^;()]*\brawInput\b/g)) {
      if (call[1] && call[1] !== action) {
        const found = schemaParsedBy(call[1], depth + 1);
        if (found) return found;
      }
    }
    return null;
  }
  return null;
}

/** How the handler of a documented operation reads its body or query: the schema's name, or why it could not be told. */
function handlerSchema(route: RouteDoc, input: "body" | "query"): { name: string } | { unresolved: string } | null {
  const file = path.join(API_DIR, ...route.path.split("/").filter(Boolean).map((s) => s.replace(/^\{(\w+)\}$/, "[$1]")), "route.ts");
  const handler = functionText(readFileSync(file, "utf8"), route.method.toUpperCase());
  if (!handler) return { unresolved: `no ${route.method.toUpperCase()} in ${file}` };
  const reader = input === "body" ? "await readJson\\(request\\)" : "queryObject\\(request\\)";
  if (!new RegExp(reader).test(handler)) return null;
  // What was read, held in a variable (`const body = await readJson(request)`), or the call itself.
  const variable = new RegExp(`(?:const|let)\\s+(\\w+)\\s*=\\s*${reader}`).exec(handler)?.[1];
  const argument = variable ? `(?:${reader}|\\b${variable}\\b|\\binput\\b)` : reader;
  // Parsed in the handler itself.
  const direct = new RegExp(`parseInput\\(\\s*(\\w+)\\s*,\\s*${argument}`).exec(handler);
  if (direct?.[1]) return { name: direct[1] };
  // Handed to a catalog action: `action(db(), …, <what was read>)`.
  const call = new RegExp(`(\\w+)\\(db\\(\\),[^;]*?${argument}`).exec(handler);
  if (!call?.[1]) return { unresolved: "the handler hands its input to no catalog action this test can follow" };
  const name = schemaParsedBy(call[1]);
  return name ? { name } : { unresolved: `${call[1]} parses no input with parseInput itself` };
}

const schemas = catalog as unknown as Record<string, unknown>;

describe("the API document and the handlers' validation come from one zod schema each (issue 30, finding 18)", () => {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { requestBody?: { content: { "application/json": { schema: unknown } } }; parameters?: { name: string; in: string; schema: unknown }[] }>> };

  for (const route of ROUTES) {
    for (const input of ["body", "query"] as const) {
      const documented = input === "body" ? route.body : route.query;
      it(`${route.method.toUpperCase()} ${route.path} ${input}`, () => {
        const found = handlerSchema(route, input);
        if (found === null) {
          expect(documented, `the document describes a ${input} the handler never reads`).toBeUndefined();
          return;
        }
        if ("unresolved" in found) {
          // Followed by hand: listed (with the reason) so that a new handler of this kind is looked at.
          expect(UNFOLLOWED[`${route.method.toUpperCase()} ${route.path} ${input}`], found.unresolved).toBeDefined();
          return;
        }
        expect(documented, `the handler reads a ${input} (${found.name}) the document does not describe`).toBeDefined();
        expect(schemas[found.name], `${found.name} is not exported by @kappa/catalog`).toBeDefined();
        const handlerZod = schemas[found.name] as z.ZodType & { shape?: Record<string, unknown> };
        const sameMembers = (d: unknown) => {
          const shape = (d as { shape?: Record<string, unknown> }).shape;
          return shape !== undefined && Object.entries(shape).every(([k, v]) => handlerZod.shape?.[k] === v);
        };
        expect(documented === handlerZod || (input === "query" && sameMembers(documented)), `the document describes the ${input} with another schema than ${found.name}, which the handler parses`).toBe(true);
        const operation = doc.paths[route.path]?.[route.method];
        const derived = requestSchemaOf(schemas[found.name] as z.ZodType);
        if (input === "body") {
          expect(operation?.requestBody?.content["application/json"].schema).toEqual(derived);
        } else {
          // Members the path supplies (`/state/{key}`) are not query parameters.
          const inPath = new Set([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
          // Each with the request guard's bounds, which hold before any handler runs.
          const properties = Object.fromEntries(Object.entries((derived.properties ?? {}) as Record<string, Record<string, unknown>>).filter(([name]) => !inPath.has(name)).map(([name, schema]) => [name, guardedParam(schema)]));
          const query = Object.fromEntries((operation?.parameters ?? []).filter((p) => p.in === "query").map((p) => [p.name, p.schema]));
          expect(query).toEqual(properties);
        }
      });
    }
  }
});

/** Handlers whose input this test cannot follow in the sources, and why the document is still theirs. */
const UNFOLLOWED: Record<string, string> = {};

it("follows most operations' inputs to their zod schema (the test is not vacuous)", () => {
  const followed = ROUTES.flatMap((r) => (["body", "query"] as const).map((i) => handlerSchema(r, i))).filter((f) => f !== null && "name" in f);
  expect(followed.length).toBeGreaterThan(50);
});
