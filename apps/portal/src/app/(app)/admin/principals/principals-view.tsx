"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { ReservedPrincipals } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useAdminMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

const SOURCES: Record<string, string> = { platform: "platform", worker: "recorded by the worker", admin: "added by an admin" };

/**
 * Kafka user names no service account may take: the platform's own (ANONYMOUS,
 * the kappa- prefix), those the worker records (its admin user, the cluster's
 * super.users) and those admins add here. Only admin entries can be removed.
 */
export function ReservedPrincipalsView() {
  const list = useQuery({ queryKey: queryKeys.admin.reservedPrincipals(), queryFn: ({ signal }) => api<ReservedPrincipals>("/api/v1/reserved-principals", { signal }) });
  const remove = useAdminMutation();
  return (
    <div className="space-y-6">
      <AddReservation />
      <Card title="Reserved principals">
        {list.isPending && <Loading />}
        {list.isError && <ErrorAlert message={list.error.message} />}
        {remove.isError && <ErrorAlert message={remove.error.message} />}
        {list.data && (
          // relative: the sr-only labels are absolutely positioned and would otherwise widen the page past a phone's screen.
          <div className="relative overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="reserved-principals">
              <caption className="sr-only">Reserved principals</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th scope="col" className="py-2 pr-4">Principal</th>
                  <th scope="col" className="py-2 pr-4">Match</th>
                  <th scope="col" className="py-2 pr-4">Why</th>
                  <th scope="col" className="py-2 pr-4">Source</th>
                  <th scope="col" className="py-2 pr-4">Accounts under it</th>
                  <th scope="col" className="py-2"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {list.data.items.map((r) => (
                  <tr key={r.id} data-testid="reserved-principal" data-name={r.name}>
                    <td className="py-2 pr-4 font-mono text-xs">User:{r.name}{r.match === "PREFIX" ? "*" : ""}</td>
                    <td className="py-2 pr-4"><Badge value={r.match} label={r.match === "PREFIX" ? "prefix" : "exact"} /></td>
                    <td className="py-2 pr-4">{r.reason}</td>
                    <td className="py-2 pr-4 text-slate-600">{SOURCES[r.source] ?? r.source}<span className="block text-xs">{formatDateTime(r.createdAt)}</span></td>
                    <td className="py-2 pr-4">
                      {r.affectedAccounts.length === 0 ? <span className="text-slate-500">none</span> : (
                        <span className="text-amber-800" data-testid="affected-accounts">{r.affectedAccounts.map((a) => a.name).join(", ")} — new grants and rotations refused</span>
                      )}
                    </td>
                    <td className="py-2 text-right">
                      {r.removable ? (
                        <Button variant="ghost" disabled={remove.isPending} onClick={() => remove.mutate({ method: "DELETE", path: `/api/v1/reserved-principals/${r.id}` })} aria-label={`Remove reservation of ${r.name}`}>Remove</Button>
                      ) : (
                        <span className="text-xs text-slate-500">protects the platform</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {list.data && list.data.renamedAccounts.length > 0 && (
        <Card title="Accounts renamed by the naming migration">
          <p className="mb-2 text-sm text-slate-600">Their old principals may still hold SCRAM credentials and ACLs on a live cluster; the worker does not touch them (it does not own them). Remove them on the cluster (see the README, &quot;Principals renamed by the naming migration&quot;).</p>
          <ul className="list-disc pl-5 text-sm" data-testid="renamed-accounts">
            {list.data.renamedAccounts.map((a) => <li key={a.id}><span className="font-mono text-xs">User:{a.previousName}</span> → <span className="font-mono text-xs">User:{a.name}</span></li>)}
          </ul>
        </Card>
      )}
    </div>
  );
}

function AddReservation() {
  const add = useAdminMutation();
  const [form, setForm] = useState({ name: "", match: "EXACT", reason: "" });
  const errors = add.error?.fields ?? {};
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    add.mutate({ method: "POST", path: "/api/v1/reserved-principals", body: form }, { onSuccess: () => setForm({ name: "", match: "EXACT", reason: "" }) });
  }
  return (
    <Card title="Reserve a principal">
      <form onSubmit={submit} className="space-y-3" aria-label="Reserve a principal">
        <p className="text-sm text-slate-600">No service account may then be created under this Kafka user name; existing ones under it keep working but get no new grants or credentials, and the worker stops changing them.</p>
        <div className="grid gap-3 sm:grid-cols-3">
          <Field id="reserved-name" label="Kafka user name" hint='With or without "User:"; for a prefix, its start (e.g. "etl-").' errors={errors.name}>
            {(p) => <input {...p} className={`${inputClass} font-mono`} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />}
          </Field>
          <Field id="reserved-match" label="Match" errors={errors.match}>
            {(p) => (
              <select {...p} className={inputClass} value={form.match} onChange={(e) => setForm({ ...form, match: e.target.value })}>
                <option value="EXACT">Exactly this name</option>
                <option value="PREFIX">Every name starting with it</option>
              </select>
            )}
          </Field>
          <Field id="reserved-reason" label="Reason" errors={errors.reason}>
            {(p) => <input {...p} className={inputClass} value={form.reason} onChange={(e) => setForm({ ...form, reason: e.target.value })} required />}
          </Field>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={add.isPending}>Reserve</Button>
          {add.isError && !errors.name && !errors.reason && <ErrorAlert message={add.error.message} />}
        </div>
      </form>
    </Card>
  );
}
