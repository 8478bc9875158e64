"use client";

import { useQuery } from "@tanstack/react-query";
import { Fragment, useState, type FormEvent } from "react";
import { keyText, RecordValue, valuePreview } from "@/components/record-value";
import { Button, Card, ErrorAlert, Field, inputClass, Loading, Notice } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { MessagePage } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

type Start = "end" | "offset" | "timestamp";

/** The message browser: choose partitions and a start, page older/newer, filter by key; every page is read (and masked) by the server. */
export function MessagesView({ productId, partitions }: { productId: string; partitions: number }) {
  const [params, setParams] = useState<Record<string, string>>({ limit: "50" });
  const [start, setStart] = useState<Start>("end");
  const [open, setOpen] = useState<string | null>(null);
  const page = useQuery({
    queryKey: queryKeys.products.messages(productId, params),
    queryFn: ({ signal }) => api<MessagePage>(`/api/v1/products/${productId}/messages${toQueryString(params)}`, { signal }),
    refetchOnWindowFocus: false,
    staleTime: Infinity,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const f = new FormData(event.currentTarget);
    const next: Record<string, string> = { limit: formText(f, "limit", "50") };
    const partition = formText(f, "partition");
    if (partition !== "") next.partition = partition;
    const key = formText(f, "key").trim();
    if (key) next.key = key;
    if (start === "offset") next.offset = formText(f, "offset", "0");
    if (start === "timestamp") {
      const local = formText(f, "timestamp");
      if (local) next.timestamp = String(Date.parse(`${local}Z`));
    }
    setOpen(null);
    setParams(next);
  }
  const go = (cursor: string) => {
    setOpen(null);
    setParams({ limit: params.limit ?? "50", ...(params.key ? { key: params.key } : {}), cursor });
  };
  const data = page.data;
  return (
    <div className="space-y-4">
      <Card>
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5" aria-label="What to read">
          <Field id="m-partition" label="Partition">
            {(a) => (
              <select {...a} name="partition" defaultValue="" className={inputClass}>
                <option value="">All ({partitions})</option>
                {Array.from({ length: partitions }, (_, p) => (
                  <option key={p} value={String(p)}>{p}</option>
                ))}
              </select>
            )}
          </Field>
          <Field id="m-start" label="Start">
            {(a) => (
              <select {...a} value={start} onChange={(e) => setStart(e.target.value as Start)} className={inputClass}>
                <option value="end">Newest (the end)</option>
                <option value="offset">At an offset</option>
                <option value="timestamp">At a time (UTC)</option>
              </select>
            )}
          </Field>
          {start === "offset" && <Field id="m-offset" label="Offset">{(a) => <input {...a} name="offset" type="number" min={0} defaultValue={0} className={inputClass} />}</Field>}
          {start === "timestamp" && <Field id="m-timestamp" label="Time (UTC)">{(a) => <input {...a} name="timestamp" type="datetime-local" step={1} required className={inputClass} />}</Field>}
          <Field id="m-key" label="Key (exact)">{(a) => <input {...a} name="key" placeholder="any" className={inputClass} />}</Field>
          <Field id="m-limit" label="Per page">
            {(a) => (
              <select {...a} name="limit" defaultValue="50" className={inputClass}>
                {[20, 50, 100, 500].map((n) => <option key={n} value={n}>{n}</option>)}
              </select>
            )}
          </Field>
          <div className="flex items-end">
            <Button type="submit" disabled={page.isFetching}>{page.isFetching ? "Reading…" : "Read"}</Button>
          </div>
        </form>
      </Card>
      {page.isPending && <Loading label="Reading records…" />}
      {page.isError && <ErrorAlert message={page.error.message} />}
      {data && (
        <Card
          title={`${data.records.length} record${data.records.length === 1 ? "" : "s"} · ${data.order === "newest-first" ? "newest first" : "oldest first"}`}
          actions={
            <div className="flex gap-2">
              <Button variant="secondary" disabled={!data.previous || page.isFetching} onClick={() => data.previous && go(data.previous)}>Older</Button>
              <Button variant="secondary" disabled={!data.next || page.isFetching} onClick={() => data.next && go(data.next)}>Newer</Button>
            </div>
          }
        >
          <div className="space-y-3">
            <p className="text-sm text-slate-600" data-testid="pii-notice">
              {data.piiVisible
                ? "You see personal data unmasked (your domain owns the product or governance granted your subscription's PII need)."
                : data.sensitivePaths.length > 0
                  ? `Masked for you: ${data.sensitivePaths.join(", ")}.`
                  : "This product has no fields tagged as personal data."}
            </p>
            {!data.piiVisible && (data.keyMasked || data.headersHidden) && (
              <p className="text-sm text-slate-600" data-testid="masking-notice">
                {[data.keyMasked ? "Keys are masked (the key is a personal-data field)" : null, data.headersHidden ? "headers are hidden (nothing says what they hold)" : null].filter(Boolean).join("; ")}.
              </p>
            )}
            {data.withheld > 0 && <Notice>{`${data.withheld} record${data.withheld === 1 ? "" : "s"} withheld: do not match the schema.`}</Notice>}
            {data.truncated && <Notice>{data.truncated}</Notice>}
            {data.records.length === 0 ? (
              <p className="text-sm text-slate-600">No records in this range.</p>
            ) : (
              <div className="overflow-x-auto">
                <table className="w-full text-left text-sm" data-testid="messages">
                  <caption className="sr-only">Records with partition, offset, time, key and value</caption>
                  <thead className="text-xs uppercase text-slate-500">
                    <tr>
                      <th scope="col" className="py-2 pr-3">Partition</th>
                      <th scope="col" className="py-2 pr-3">Offset</th>
                      <th scope="col" className="py-2 pr-3">Time (UTC)</th>
                      <th scope="col" className="py-2 pr-3">Key</th>
                      <th scope="col" className="py-2">Value</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {data.records.map((r) => {
                      const id = `${r.partition}:${r.offset}`;
                      return (
                        <Fragment key={id}>
                          <tr>
                            <td className="py-2 pr-3 font-mono">{r.partition}</td>
                            <td className="py-2 pr-3 font-mono">{r.offset}</td>
                            <td className="whitespace-nowrap py-2 pr-3">{formatDateTime(r.timestamp)}</td>
                            <td className="max-w-40 truncate py-2 pr-3 font-mono" title={keyText(r.key)}>{keyText(r.key)}</td>
                            <td className="py-2">
                              <button type="button" className="max-w-xl truncate text-left font-mono text-xs text-indigo-800 hover:underline" aria-expanded={open === id} onClick={() => setOpen(open === id ? null : id)}>
                                {valuePreview(r.value)}
                              </button>
                            </td>
                          </tr>
                          {open === id && (
                            <tr>
                              <td colSpan={5} className="bg-slate-50 p-3">
                                <RecordValue value={r.value} />
                                <p className="mt-2 text-xs text-slate-500">
                                  {r.size} bytes · {r.timestampType} · headers: {data.headersHidden ? "hidden" : r.headers.length === 0 ? "none" : r.headers.map((h) => `${h.key}=${h.value ? keyText(h.value) : "null"}`).join(", ")}
                                </p>
                              </td>
                            </tr>
                          )}
                        </Fragment>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
            <p className="text-xs text-slate-500">
              Offsets per partition: {data.partitions.map((p) => `${p.partition}: ${p.earliest}–${p.end}`).join(" · ")}
            </p>
          </div>
        </Card>
      )}
    </div>
  );
}
