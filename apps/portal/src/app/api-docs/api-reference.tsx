"use client";

import "swagger-ui-dist/swagger-ui.css";
import { useEffect, useRef, useState } from "react";

/** Swagger UI, loaded only on this page (a lazy chunk of our own bundle). */
export function ApiReference() {
  const target = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    import("swagger-ui-dist/swagger-ui-es-bundle.js")
      .then((module) => {
        if (cancelled || !target.current) return;
        module.default({
          domNode: target.current,
          url: "/api/v1/openapi.json",
          // No call to the public validator service: nothing leaves this origin.
          validatorUrl: null,
          deepLinking: true,
          tryItOutEnabled: false,
          withCredentials: true,
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
