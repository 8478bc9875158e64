"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { keyText, RecordValue, valuePreview } from "@/components/record-value";
import { Ago } from "@/components/relative-time";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Loading } from "@/components/ui";
import { api, toQueryString, type ApiError } from "@/lib/api-client";
import type { StateEntryJson, StateKeysPage, StateViewStatus } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { formatDateTime } from "@/lib/format";
import { formatCount, formatLagTime } from "@/lib/observations";
import { queryKeys } from "@/lib/query-keys";

/** The latest-state view: its progress and lag, a key lookup, and keys by prefix. */
export function StateView({ productId, canRebuild }: { productId: string; canRebuild: boolean }) {
  const client = useQueryClient();
  const status = useQuery({
    queryKey: queryKeys.products.state(productId),
    queryFn: ({ signal }) => api<StateViewStatus>(`/api/v1/products/${productId}/state`, { signal }),
    refetchInterval: 3_000,
  });
  const rebuild = useMutation<unknown, ApiError, void>({
    mutationFn: () => api(`/api/v1/products/${productId}/state`, { method: "POST", body: { rebuild: true } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.products.state(productId) }),
  });
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <div className="min-w-0 space-y-6 lg:col-span-2">
        <Lookup productId={productId} />
        <Keys productId={productId} />
      </div>
      <Card title="The view" actions={<span className="text-xs text-slate-500">Live · every 3 s</span>}>
        {status.isPending ? (
          <Loading />
        ) : status.isError ? (
          <ErrorAlert message={status.error.message} />
        ) : !status.data.view ? (
          <p className="text-sm text-slate-600">Not built yet: the worker starts it within seconds of the topic existing.</p>
        ) : (
          <div className="space-y-3 text-sm" data-testid="state-status">
            <p className="flex items-center gap-2"><Badge value={status.data.view.status === "LIVE" ? "ACTIVE" : status.data.view.status === "ERROR" ? "FAILED" : "RUNNING"} label={status.data.view.status.toLowerCase()} /> {formatCount(status.data.view.keyCount)} keys</p>
            <p data-testid="state-lag">
              Behind the topic: {formatCount(status.data.lag.records)} records · {status.data.lag.seconds === null ? "unknown" : formatLagTime(status.data.lag.seconds * 1000)}
            </p>
            {status.data.view.lastError && <p className="text-rose-800" role="alert">{status.data.view.lastError}</p>}
            {status.data.view.lastAppliedAt && <p className="text-xs text-slate-500">Last applied <Ago iso={status.data.view.lastAppliedAt} /></p>}
            <table className="w-full text-left text-xs">
              <thead className="uppercase text-slate-500">
                <tr><th scope="col" className="py-1 pr-2">Partition</th><th scope="col" className="py-1 pr-2">Applied up to</th><th scope="col" className="py-1 pr-2">End</th><th scope="col" className="py-1">Lag</th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100 font-mono">
                {status.data.partitions.map((p) => (
                  <tr key={p.partition}><td className="py-1 pr-2">{p.partition}</td><td className="py-1 pr-2">{formatCount(p.nextOffset)}</td><td className="py-1 pr-2">{formatCount(p.endOffset)}</td><td className="py-1">{formatCount(p.lagRecords)}</td></tr>
                ))}
              </tbody>
            </table>
            {canRebuild && (
              <div className="space-y-1">
                <Button variant="secondary" disabled={rebuild.isPending} onClick={() => window.confirm("Rebuild the view from offset 0? Lookups show the rebuilt state as it fills in.") && rebuild.mutate()}>Rebuild from offset 0</Button>
                <ErrorAlert message={rebuild.error?.message ?? null} />
              </div>
            )}
          </div>
        )}
      </Card>
    </div>
  );
}

function Lookup({ productId }: { productId: string }) {
  const [query, setQuery] = useState<{ key: string; encoding: string } | null>(null);
  const entry = useQuery({
    queryKey: queryKeys.products.stateKey(productId, query?.key ?? "", query?.encoding ?? "utf8"),
    queryFn: ({ signal }) => api<StateEntryJson>(`/api/v1/products/${productId}/state/${encodeURIComponent(query?.key ?? "")}${toQueryString({ encoding: query?.encoding === "hex" ? "hex" : undefined })}`, { signal }),
    enabled: query !== null,
    retry: false,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const f = new FormData(event.currentTarget);
    const key = formText(f, "key");
    if (key) setQuery({ key, encoding: f.get("hex") ? "hex" : "utf8" });
  }
  return (
    <Card title="Look up a key">
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <div className="min-w-60 flex-1">
          <Field id="s-key" label="Key">{(a) => <input {...a} name="key" required className={inputClass} />}</Field>
        </div>
        <label className="flex items-center gap-2 pb-2 text-sm"><input type="checkbox" name="hex" /> hex</label>
        <Button type="submit">Look up</Button>
      </form>
      <div className="mt-4" data-testid="state-lookup">
        {entry.isFetching && <Loading />}
        {entry.isError && <ErrorAlert message={entry.error.message} />}
        {entry.data && (
          <div className="space-y-2">
            <p className="text-sm">
              <span className="font-mono font-medium">{keyText(entry.data.key)}</span> — from partition {entry.data.partition}, offset {entry.data.offset}, written {formatDateTime(entry.data.timestamp)}
            </p>
            <RecordValue value={entry.data.value} />
          </div>
        )}
      </div>
    </Card>
  );
}

function Keys({ productId }: { productId: string }) {
  const [prefix, setPrefix] = useState("");
  const [after, setAfter] = useState<string[]>([]);
  const params: Record<string, string> = { keys: "1", limit: "25", ...(prefix ? { prefix } : {}), ...(after.length > 0 ? { after: after[after.length - 1]! } : {}) };
  const page = useQuery({
    queryKey: queryKeys.products.stateKeys(productId, params),
    queryFn: ({ signal }) => api<StateKeysPage>(`/api/v1/products/${productId}/state${toQueryString(params)}`, { signal }),
  });
  return (
    <Card title="Keys">
      <form
        className="mb-3 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          setPrefix(formText(new FormData(e.currentTarget), "prefix"));
          setAfter([]);
        }}
      >
        <div className="min-w-60 flex-1"><Field id="s-prefix" label="Key prefix">{(a) => <input {...a} name="prefix" defaultValue={prefix} className={inputClass} />}</Field></div>
        <Button type="submit" variant="secondary">Search</Button>
      </form>
      {page.isPending ? <Loading /> : page.isError ? <ErrorAlert message={page.error.message} /> : (
        <>
          <ul className="divide-y divide-slate-100" data-testid="state-keys">
            {page.data.entries.map((e) => (
              <li key={`${e.partition}:${e.offset}`} className="py-2 text-sm">
                <p className="font-mono font-medium">{keyText(e.key)}</p>
                <p className="truncate font-mono text-xs text-slate-600">{valuePreview(e.value)}</p>
              </li>
            ))}
          </ul>
          {page.data.entries.length === 0 && page.data.withheld === 0 && <p className="text-sm text-slate-600">No keys{prefix ? ` starting with "${prefix}"` : ""}.</p>}
          {page.data.withheld > 0 && <p className="mt-2 text-sm text-amber-800" data-testid="state-withheld">{`${page.data.withheld} record${page.data.withheld === 1 ? "" : "s"} withheld: do not match the schema.`}</p>}
          {page.data.keyMasked && <p className="mt-2 text-sm text-slate-600">Keys are masked: the key is a personal-data field (search by prefix needs PII access).</p>}
          <div className="mt-3 flex gap-2">
            <Button variant="secondary" disabled={after.length === 0} onClick={() => setAfter(after.slice(0, -1))}>Previous</Button>
            <Button variant="secondary" disabled={!page.data.nextAfter} onClick={() => page.data.nextAfter && setAfter([...after, page.data.nextAfter])}>Next</Button>
          </div>
        </>
      )}
    </Card>
  );
}
