import type { Metadata } from "next";
import { Link } from "@/components/link";
import { ApiReference } from "./api-reference";

export const metadata: Metadata = { title: "API reference" };

/**
 * The interactive reference of /api/v1, rendered by Swagger UI from the npm
 * package (bundled by Next: nothing is fetched from a CDN) over
 * /api/v1/openapi.json. "Try it out" uses your session or a Bearer token.
 */
export default function ApiDocsPage() {
  return (
    <main id="main" className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
      <p className="mb-2 text-sm"><Link href="/" className="text-indigo-700 hover:underline">← Kappa Mesh</Link></p>
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Kappa Mesh API</h1>
      <p className="mt-1 text-sm text-slate-600">
        OpenAPI 3.1: <a className="text-indigo-700 hover:underline" href="/api/v1/openapi.json">/api/v1/openapi.json</a>. Send <code>Authorization: Bearer &lt;API token&gt;</code> (create one on <Link className="text-indigo-700 hover:underline" href="/tokens">API tokens</Link>) or use the portal session.
      </p>
      <ApiReference />
    </main>
  );
}
