"use client";

import "swagger-ui-dist/swagger-ui.css";
import { useEffect, useRef, useState } from "react";

interface OpenApiDocument {
  info?: { title?: string; description?: string; version?: string };
  paths: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/**
 * Swagger UI (5.x) stops rendering an OpenAPI 3.1 document of this size part of
 * the way through: with 108 paths or more it showed two tags' first operations
 * and nothing after, without an error, while any 107 of them rendered in full.
 * So the document is shown as consecutive parts, each a complete document (all
 * components) holding whole tags and at most this many paths.
 */
const PATHS_PER_PART = 60;

/** The document cut into parts of whole tags (in the document's order), each at most PATHS_PER_PART paths. */
export function splitByTag(doc: OpenApiDocument): OpenApiDocument[] {
  const tagOf = (item: Record<string, unknown>) => {
    for (const op of Object.values(item)) {
      const tags = (op as { tags?: unknown } | null)?.tags;
      if (Array.isArray(tags) && typeof tags[0] === "string") return tags[0];
    }
    return "";
  };
  const byTag = new Map<string, [string, Record<string, unknown>][]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const tag = tagOf(item);
    byTag.set(tag, [...(byTag.get(tag) ?? []), [path, item]]);
  }
  const parts: [string, Record<string, unknown>][][] = [];
  for (const paths of byTag.values()) {
    const last = parts.at(-1);
    if (last && last.length + paths.length <= PATHS_PER_PART) last.push(...paths);
    else parts.push([...paths]);
  }
  return parts.map((paths, i) => ({
    ...doc,
    // The title and description once, on the first part.
    info: i === 0 ? doc.info : { ...doc.info, title: `${doc.info?.title ?? "API"} (continued)`, description: "" },
    paths: Object.fromEntries(paths),
  }));
}

/** Swagger UI, loaded only on this page (a lazy chunk of our own bundle). */
export function ApiReference() {
  const target = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    Promise.all([import("swagger-ui-dist/swagger-ui-es-bundle.js"), fetch("/api/v1/openapi.json", { credentials: "same-origin" }).then((r) => r.json() as Promise<OpenApiDocument>)])
      .then(([module, doc]) => {
        if (cancelled || !target.current) return;
        const root = target.current;
        root.replaceChildren();
        const parts = splitByTag(doc);
        parts.forEach((spec, i) => {
          const node = document.createElement("div");
          root.append(node);
          module.default({
            domNode: node,
            spec,
            // No call to the public validator service: nothing leaves this origin.
            validatorUrl: null,
            deepLinking: i === 0,
            tryItOutEnabled: false,
            withCredentials: true,
            // The shared schemas once, under the last part.
            defaultModelsExpandDepth: i === parts.length - 1 ? 1 : -1,
          });
        });
      })
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
    return () => {
      cancelled = true;
    };
  }, []);
  return (
    <div className="mt-4 rounded-lg bg-white ring-1 ring-slate-200">
      {error && <p role="alert" className="p-4 text-sm text-rose-700">The reference could not load: {error}</p>}
      <div ref={target} data-testid="api-reference" aria-label="API reference" />
    </div>
  );
}
