"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, EmptyState, ErrorAlert, Field, inputClass, Loading, Notice } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { ApiTokenList } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

interface Created {
  id: string;
  name: string;
  token: string;
}

export function TokensView() {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: queryKeys.tokens, queryFn: ({ signal }) => api<ApiTokenList>("/api/v1/tokens", { signal }) });
  const [created, setCreated] = useState<Created | null>(null);
  const revoke = useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api(`/api/v1/tokens/${id}/revoke`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.tokens }),
  });
  if (tokens.isPending) return <Loading />;
  if (tokens.isError) return <ErrorAlert message={tokens.error.message} />;
  return (
    <div className="space-y-6">
      {created && (
        <div role="status" aria-live="polite" className="rounded-lg bg-emerald-50 p-4 ring-1 ring-emerald-200">
          <p className="text-sm font-medium text-emerald-900">Token “{created.name}” created. Copy it now: it is not shown again.</p>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <code className="break-all rounded bg-white px-2 py-1 font-mono text-sm ring-1 ring-emerald-200" data-testid="new-token">{created.token}</code>
            <Button variant="secondary" onClick={() => void navigator.clipboard?.writeText(created.token)}>Copy</Button>
            <Button variant="ghost" onClick={() => setCreated(null)}>I have stored it</Button>
          </div>
          <p className="mt-2 text-xs text-emerald-900">CLI: <code>kappa login --url {typeof window === "undefined" ? "" : window.location.origin} --with-token &lt; token.txt</code></p>
        </div>
      )}
      <CreateTokenForm list={tokens.data} onCreated={(c) => { setCreated(c); void client.invalidateQueries({ queryKey: queryKeys.tokens }); }} />
      <Card title="Your tokens and your domains' service tokens">
        {revoke.isError && <ErrorAlert message={revoke.error.message} />}
        {tokens.data.items.length === 0 ? (
          <EmptyState title="No tokens yet" />
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="token-table">
              <caption className="sr-only">API tokens</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr><th scope="col" className="py-2 pr-4">Name</th><th scope="col" className="py-2 pr-4">Scopes</th><th scope="col" className="py-2 pr-4">Expires</th><th scope="col" className="py-2 pr-4">Last used</th><th scope="col" className="py-2 pr-4">State</th><th scope="col" className="py-2"><span className="sr-only">Actions</span></th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100 align-top">
                {tokens.data.items.map((t) => (
                  <tr key={t.id}>
                    <td className="py-2 pr-4">
                      <span className="font-medium">{t.name}</span>
                      <div className="font-mono text-xs text-slate-500">{t.prefix}… · {t.kind === "SERVICE" ? "service" : "personal"} · {t.user.email}</div>
                    </td>
                    <td className="py-2 pr-4 font-mono text-xs">{t.scopes.join(" ")}</td>
                    <td className="whitespace-nowrap py-2 pr-4">{formatDateTime(t.expiresAt)}</td>
                    <td className="whitespace-nowrap py-2 pr-4">{t.lastUsedAt ? formatDateTime(t.lastUsedAt) : "never"}</td>
                    <td className="py-2 pr-4"><Badge value={t.state === "ACTIVE" ? "ACTIVE" : t.state === "REVOKED" ? "REVOKED" : "RETIRED"} label={t.state.toLowerCase()} /></td>
                    <td className="py-2">
                      {t.state === "ACTIVE" && (
                        <Button variant="secondary" disabled={revoke.isPending} onClick={() => revoke.mutate(t.id)} aria-label={`Revoke ${t.name}`}>Revoke</Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}

function CreateTokenForm({ list, onCreated }: { list: ApiTokenList; onCreated: (c: Created) => void }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"PERSONAL" | "SERVICE">("PERSONAL");
  const [domainId, setDomainId] = useState(list.ownedDomains[0]?.id ?? "");
  const [scopes, setScopes] = useState<string[]>(["read"]);
  const [days, setDays] = useState("90");
  const create = useMutation<Created, ApiError, void>({
    mutationFn: () =>
      api<Created>("/api/v1/tokens", { method: "POST", body: { name, scopes, expiresInDays: Number(days), kind, ...(kind === "SERVICE" ? { domainId } : {}) } }),
    onSuccess: (c) => {
      setName("");
      onCreated(c);
    },
  });
  const serviceDomain = list.ownedDomains.find((d) => d.id === domainId);
  const offered = kind === "SERVICE" ? ["read", ...(serviceDomain ? [`write:${serviceDomain.slug}`] : [])] : list.grantableScopes;
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  const toggle = (scope: string) => setScopes((s) => (s.includes(scope) ? s.filter((x) => x !== scope) : [...s, scope]));
  return (
    <Card title="Create a token">
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <ErrorAlert message={create.isError ? create.error.message : null} />
        <div className="grid gap-4 sm:grid-cols-3">
          <Field id="tokenName" label="Name" errors={create.error?.fields.name} hint="What uses it, e.g. “orders CI”.">
            {(a) => <input {...a} value={name} onChange={(e) => setName(e.target.value)} className={inputClass} />}
          </Field>
          <Field id="tokenDays" label="Expires in (days)" errors={create.error?.fields.expiresInDays} hint="1–365">
            {(a) => <input {...a} inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} className={inputClass} />}
          </Field>
          <Field id="tokenKind" label="Kind" hint={kind === "SERVICE" ? "Belongs to the domain: every owner sees and can revoke it." : "Acts as you."}>
            {(a) => (
              <select {...a} value={kind} onChange={(e) => { setKind(e.target.value === "SERVICE" ? "SERVICE" : "PERSONAL"); setScopes(["read"]); }} className={inputClass}>
                <option value="PERSONAL">Personal</option>
                {list.ownedDomains.length > 0 && <option value="SERVICE">Service (a domain's)</option>}
              </select>
            )}
          </Field>
          {kind === "SERVICE" && (
            <Field id="tokenDomain" label="Domain">
              {(a) => (
                <select {...a} value={domainId} onChange={(e) => { setDomainId(e.target.value); setScopes(["read"]); }} className={inputClass}>
                  {list.ownedDomains.map((d) => <option key={d.id} value={d.id}>{d.slug}</option>)}
                </select>
              )}
            </Field>
          )}
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Scopes</legend>
          <div className="mt-1 flex flex-wrap gap-4">
            {offered.map((scope) => (
              <label key={scope} className="flex items-center gap-2 font-mono text-sm">
                <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} className="h-4 w-4" />
                {scope}
              </label>
            ))}
          </div>
          <p className="mt-1 text-xs text-slate-500">read: reads only · write:&lt;domain&gt;: change that domain&apos;s products and subscriptions · review: governance decisions · admin: platform administration.</p>
          {create.error?.fields.scopes && <p className="mt-1 text-sm text-rose-700" data-field-error>{create.error.fields.scopes.join(" ")}</p>}
        </fieldset>
        <Button type="submit" disabled={create.isPending}>{create.isPending ? "Creating…" : "Create token"}</Button>
        {create.isSuccess && <Notice>Created.</Notice>}
      </form>
    </Card>
  );
}
