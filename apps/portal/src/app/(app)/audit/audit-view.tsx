"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Link } from "@/components/link";
import { Button, Card, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { AuditPage } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys, type AuditFilters } from "@/lib/query-keys";
import { useDebounced } from "@/lib/use-debounced";
import { AuditDetails, ClientCell } from "./audit-details";

const ENTITY_TYPES = ["DataProduct", "Subscription", "ServiceAccount", "Domain", "User", "SchemaVersion", "SsoGroupMapping", "ApiToken"];
const FILTER_KEYS = ["entityType", "entityId", "actor", "action", "via", "from", "to"] as const;
type Draft = Record<(typeof FILTER_KEYS)[number], string>;
const EMPTY: Draft = { entityType: "", entityId: "", actor: "", action: "", via: "", from: "", to: "" };

/** The MCP client and tool an agent's event names (catalog: agentAuditData), or null for a person's. */
function agentOf(data: unknown): { client: string; tool: string } | null {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
  const d = data as Record<string, unknown>;
  return d.via === "mcp" && typeof d.mcpClient === "string" && typeof d.mcpTool === "string" ? { client: d.mcpClient, tool: d.mcpTool } : null;
}

function filtersOf(draft: Draft): AuditFilters {
  const f: AuditFilters = {};
  for (const k of FILTER_KEYS) if (draft[k].trim()) f[k] = draft[k].trim();
  return f;
}

export function AuditView() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const page = Number(params.get("page") ?? "1");
  const fromUrl: Draft = { ...EMPTY, ...Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ""])) };
  const filters: AuditFilters = { ...filtersOf(fromUrl), page: Number.isInteger(page) && page > 1 ? page : undefined };
  const [draft, setDraft] = useState<Draft>(fromUrl);
  // Filters apply as you type: the URL (and so the query) follows the draft once typing pauses.
  const settled = useDebounced(draft, 300);
  const lastApplied = useRef(JSON.stringify(filtersOf(fromUrl)));
  useEffect(() => {
    const next = filtersOf(settled);
    const key = JSON.stringify(next);
    if (key === lastApplied.current) return;
    lastApplied.current = key;
    router.replace(`${pathname}${toQueryString({ ...next })}`, { scroll: false });
  }, [settled, pathname, router]);
  const go = (next: AuditFilters) => {
    lastApplied.current = JSON.stringify(filtersOf({ ...EMPTY, ...Object.fromEntries(FILTER_KEYS.map((k) => [k, next[k] ?? ""])) }));
    router.replace(`${pathname}${toQueryString({ ...next })}`, { scroll: false });
  };

  const events = useQuery({
    queryKey: queryKeys.audit.list(filters),
    queryFn: ({ signal }) => api<AuditPage>(`/api/v1/audit-events${toQueryString({ ...filters, pageSize: 50 })}`, { signal }),
    placeholderData: keepPreviousData,
  });
  const exportQuery = (format: "csv" | "json") => `/api/v1/audit-events/export${toQueryString({ ...filtersOf(fromUrl), format })}`;
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });

  return (
    <div className="space-y-4">
      <Card>
        <form onSubmit={(e) => { e.preventDefault(); go(filtersOf(draft)); }} className="grid items-end gap-3 sm:grid-cols-3 lg:grid-cols-7" aria-label="Filter the audit log" role="search">
          <div>
            <label htmlFor="entityType" className="block text-sm font-medium">Entity type</label>
            <select id="entityType" value={draft.entityType} onChange={set("entityType")} className={`${inputClass} mt-1`}>
              <option value="">All</option>
              {ENTITY_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </div>
          <div>
            <label htmlFor="entityId" className="block text-sm font-medium">Entity id</label>
            <input id="entityId" value={draft.entityId} onChange={set("entityId")} className={`${inputClass} mt-1`} />
          </div>
          <div>
            <label htmlFor="actor" className="block text-sm font-medium">Actor e-mail</label>
            <input id="actor" value={draft.actor} onChange={set("actor")} placeholder="contains…" className={`${inputClass} mt-1`} />
          </div>
          <div>
            <label htmlFor="action" className="block text-sm font-medium">Action</label>
            <input id="action" value={draft.action} onChange={set("action")} placeholder="e.g. subscription." className={`${inputClass} mt-1`} />
          </div>
          <div>
            <label htmlFor="via" className="block text-sm font-medium">Made via</label>
            <select id="via" value={draft.via} onChange={set("via")} className={`${inputClass} mt-1`}>
              <option value="">Anything</option>
              <option value="mcp">MCP agents</option>
            </select>
          </div>
          <div>
            <label htmlFor="from" className="block text-sm font-medium">From</label>
            <input id="from" type="date" value={draft.from} onChange={set("from")} className={`${inputClass} mt-1`} />
          </div>
          <div>
            <label htmlFor="to" className="block text-sm font-medium">To</label>
            <input id="to" type="date" value={draft.to} onChange={set("to")} className={`${inputClass} mt-1`} />
          </div>
          <div className="flex flex-wrap items-center gap-2 sm:col-span-3 lg:col-span-7">
            {/* Enter (or this button) applies at once; otherwise filters follow the typing. */}
            <Button type="submit" variant="secondary">Filter</Button>
            <Button variant="ghost" onClick={() => { setDraft(EMPTY); go({}); }}>Clear</Button>
            <span className="text-xs text-slate-500">Filters apply as you type (dates in UTC).</span>
            <span className="ml-auto flex gap-2">
              <a className="rounded-md px-3 py-2 text-sm font-medium text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50" href={exportQuery("csv")} download>Export CSV</a>
              <a className="rounded-md px-3 py-2 text-sm font-medium text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50" href={exportQuery("json")} download>Export JSON</a>
            </span>
          </div>
        </form>
      </Card>
      {events.isPending && <Loading />}
      {events.isError && <ErrorAlert message={events.error.message} />}
      {events.data && events.data.items.length === 0 && <EmptyState title="No audit events match" />}
      {events.data && events.data.items.length > 0 && (
        <Card>
          <p className="mb-2 text-sm text-slate-600" aria-live="polite" data-testid="audit-total">{events.data.total} events</p>
          <div className="overflow-x-auto">
            <table className="w-full min-w-[56rem] table-fixed text-left text-sm" data-testid="audit-table">
              <caption className="sr-only">Audit events</caption>
              <colgroup>
                <col className="w-40" />
                <col className="w-52" />
                <col className="w-48" />
                <col className="w-44" />
                <col />
              </colgroup>
              <thead className="text-xs uppercase text-slate-500">
                <tr><th scope="col" className="py-2 pr-4">When</th><th scope="col" className="py-2 pr-4">Actor</th><th scope="col" className="py-2 pr-4">Action</th><th scope="col" className="py-2 pr-4">Entity</th><th scope="col" className="py-2">Details</th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100 align-top">
                {events.data.items.map((e) => {
                  const agent = agentOf(e.data);
                  return (
                  <tr key={e.id} data-testid="audit-row">
                    <td className="py-2 pr-4 text-slate-600">{formatDateTime(e.at)}</td>
                    <td className="py-2 pr-4 break-words">
                      {e.actorEmail}
                      {agent && <div className="text-xs text-violet-800" data-testid="audit-agent">via MCP: {agent.client} · {agent.tool}</div>}
                      <ClientCell clientAddress={e.clientAddress} userAgent={e.userAgent} />
                    </td>
                    <td className="py-2 pr-4 font-medium break-words">{e.action}</td>
                    <td className="py-2 pr-4">
                      <button type="button" className="text-left text-indigo-700 hover:underline" onClick={() => { setDraft({ ...EMPTY, entityType: e.entityType, entityId: e.entityId }); go({ entityType: e.entityType, entityId: e.entityId }); }}>
                        {e.entityType}
                      </button>
                      {e.entityType === "DataProduct" && <> · <Link className="text-xs text-slate-500 hover:underline" href={`/products/${e.entityId}`}>open</Link></>}
                      <div className="truncate font-mono text-xs text-slate-400" title={e.entityId}>{e.entityId}</div>
                    </td>
                    <td className="py-2"><AuditDetails data={e.data} /></td>
                  </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <nav aria-label="Pagination" className="mt-4 flex items-center justify-between">
            <Button variant="secondary" disabled={events.data.page <= 1} onClick={() => go({ ...filters, page: events.data.page - 1 > 1 ? events.data.page - 1 : undefined })}>Previous</Button>
            <span className="text-sm text-slate-600">Page {events.data.page} of {events.data.pageCount} · {events.data.total} events</span>
            <Button variant="secondary" disabled={events.data.page >= events.data.pageCount} onClick={() => go({ ...filters, page: events.data.page + 1 })}>Next</Button>
          </nav>
        </Card>
      )}
    </div>
  );
}
