"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Card, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { AuditPage } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys, type AuditFilters } from "@/lib/query-keys";

const ENTITY_TYPES = ["DataProduct", "Subscription", "ServiceAccount", "Domain", "User", "SchemaVersion"];

export function AuditView() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const page = Number(params.get("page") ?? "1");
  const filters: AuditFilters = {
    entityType: params.get("entityType") ?? undefined,
    entityId: params.get("entityId") ?? undefined,
    actor: params.get("actor") ?? undefined,
    page: Number.isInteger(page) && page > 1 ? page : undefined,
  };
  const [draft, setDraft] = useState({ entityType: filters.entityType ?? "", entityId: filters.entityId ?? "", actor: filters.actor ?? "" });
  const go = (next: AuditFilters) => router.replace(`${pathname}${toQueryString({ ...next })}`, { scroll: false });
  const events = useQuery({
    queryKey: queryKeys.audit.list(filters),
    queryFn: ({ signal }) => api<AuditPage>(`/api/v1/audit-events${toQueryString({ ...filters, pageSize: 50 })}`, { signal }),
    placeholderData: keepPreviousData,
  });

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go({ entityType: draft.entityType || undefined, entityId: draft.entityId.trim() || undefined, actor: draft.actor.trim() || undefined });
  }

  return (
    <div className="space-y-4">
      <Card>
        <form onSubmit={apply} className="grid items-end gap-3 sm:grid-cols-4" aria-label="Filter the audit log">
          <div>
            <label htmlFor="entityType" className="block text-sm font-medium">Entity type</label>
            <select id="entityType" value={draft.entityType} onChange={(e) => setDraft({ ...draft, entityType: e.target.value })} className={`${inputClass} mt-1`}>
              <option value="">All</option>
              {ENTITY_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </div>
          <div>
            <label htmlFor="entityId" className="block text-sm font-medium">Entity id</label>
            <input id="entityId" value={draft.entityId} onChange={(e) => setDraft({ ...draft, entityId: e.target.value })} className={`${inputClass} mt-1`} />
          </div>
          <div>
            <label htmlFor="actor" className="block text-sm font-medium">Actor e-mail</label>
            <input id="actor" value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} placeholder="contains…" className={`${inputClass} mt-1`} />
          </div>
          <div className="flex gap-2">
            <Button type="submit">Filter</Button>
            <Button variant="ghost" onClick={() => { setDraft({ entityType: "", entityId: "", actor: "" }); go({}); }}>Clear</Button>
          </div>
        </form>
      </Card>
      {events.isPending && <Loading />}
      {events.isError && <ErrorAlert message={events.error.message} />}
      {events.data && events.data.items.length === 0 && <EmptyState title="No audit events match" />}
      {events.data && events.data.items.length > 0 && (
        <Card>
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="audit-table">
              <caption className="sr-only">Audit events</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr><th scope="col" className="py-2 pr-4">When</th><th scope="col" className="py-2 pr-4">Actor</th><th scope="col" className="py-2 pr-4">Action</th><th scope="col" className="py-2 pr-4">Entity</th><th scope="col" className="py-2">Details</th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100 align-top">
                {events.data.items.map((e) => (
                  <tr key={e.id}>
                    <td className="whitespace-nowrap py-2 pr-4 text-slate-600">{formatDateTime(e.at)}</td>
                    <td className="py-2 pr-4">{e.actorEmail}</td>
                    <td className="py-2 pr-4 font-medium">{e.action}</td>
                    <td className="py-2 pr-4">
                      <button type="button" className="text-left text-indigo-700 hover:underline" onClick={() => { setDraft({ entityType: e.entityType, entityId: e.entityId, actor: "" }); go({ entityType: e.entityType, entityId: e.entityId }); }}>
                        {e.entityType}
                      </button>
                      {e.entityType === "DataProduct" && <> · <Link className="text-xs text-slate-500 hover:underline" href={`/products/${e.entityId}`}>open</Link></>}
                      <div className="font-mono text-xs text-slate-400">{e.entityId}</div>
                    </td>
                    <td className="py-2">
                      <dl className="max-w-sm text-xs text-slate-600 [overflow-wrap:anywhere]">
                        {Object.entries(e.data ?? {}).map(([k, v]) => (
                          <div key={k}>
                            <dt className="inline font-medium text-slate-700">{k}: </dt>
                            <dd className="inline font-mono">{typeof v === "string" ? v : JSON.stringify(v)}</dd>
                          </div>
                        ))}
                      </dl>
                    </td>
                  </tr>
                ))}
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
