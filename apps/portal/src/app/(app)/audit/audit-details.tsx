"use client";

import type { AuditEventRow } from "@/lib/api-types";

const LONG = 160;

/** A value as a person reads it: text as-is, lists joined, objects as compact JSON. */
function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) return value.join(", ");
  return JSON.stringify(value);
}

/**
 * The details column: one line per field, wrapping between words (a long
 * token such as an id breaks only when it alone is wider than the column) —
 * never letter by letter — and long values folded behind a disclosure.
 */
export function AuditDetails({ data }: { data: AuditEventRow["data"] }) {
  const entries = typeof data === "object" && data !== null && !Array.isArray(data) ? Object.entries(data) : [];
  if (entries.length === 0) return <span className="text-xs text-slate-400">—</span>;
  return (
    <dl className="space-y-0.5 text-xs leading-5 text-slate-600" data-testid="audit-details">
      {entries.map(([k, v]) => {
        const text = show(v);
        return (
          <div key={k} className="break-words">
            <dt className="inline font-medium text-slate-700">{k}: </dt>
            <dd className="inline">
              {text.length > LONG ? (
                <details className="inline">
                  <summary className="inline cursor-pointer">{text.slice(0, LONG)}… <span className="text-indigo-700">more</span></summary>
                  <span className="block whitespace-pre-wrap break-words font-mono">{typeof v === "string" ? v : JSON.stringify(v, null, 2)}</span>
                </details>
              ) : (
                <span className={typeof v === "string" ? undefined : "font-mono"}>{text}</span>
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** Client address and a short form of the user agent (full text on hover and for screen readers). */
export function ClientCell({ clientAddress, userAgent }: { clientAddress: string | null; userAgent: string | null }) {
  if (!clientAddress && !userAgent) return null;
  const short = userAgent ? shortAgent(userAgent) : null;
  return (
    <div className="mt-0.5 text-xs text-slate-500" data-testid="audit-client">
      {clientAddress && <span className="font-mono">{clientAddress}</span>}
      {clientAddress && short && " · "}
      {short && <span title={userAgent ?? undefined}>{short}<span className="sr-only"> (user agent {userAgent})</span></span>}
    </div>
  );
}

/** "Chrome 140 on Linux"-style summary; falls back to the first 40 characters. */
export function shortAgent(ua: string): string {
  const browser = /(Edg|Firefox|Chrome|Chromium|Safari|curl|kappa|node|python-requests|Go-http-client)\/(\d+)/.exec(ua);
  const os = /(Windows|Mac OS X|Android|iPhone|Linux)/.exec(ua);
  if (browser) return `${browser[1] === "Edg" ? "Edge" : browser[1]} ${browser[2]}${os ? ` on ${os[1] === "Mac OS X" ? "macOS" : os[1]}` : ""}`;
  return ua.length > 40 ? `${ua.slice(0, 40)}…` : ua;
}
