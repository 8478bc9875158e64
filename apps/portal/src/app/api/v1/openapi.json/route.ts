import { buildOpenApiDocument } from "@/server/openapi/document";

// Built once per process: the document depends only on the code.
let cached: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 description of /api/v1 (public: it describes, it grants nothing). */
export function GET() {
  cached ??= buildOpenApiDocument();
  return Response.json(cached, { headers: { "cache-control": "public, max-age=300" } });
}
