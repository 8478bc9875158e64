"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, inputClass, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { AdminDomain, SsoGroupMapping } from "@/lib/api-types";
import { useAdminMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

export function SsoMappingView() {
  const mappings = useQuery({ queryKey: queryKeys.admin.ssoMappings(), queryFn: ({ signal }) => api<SsoGroupMapping[]>("/api/v1/sso/group-mappings", { signal }) });
  const domains = useQuery({ queryKey: queryKeys.admin.domains(), queryFn: ({ signal }) => api<AdminDomain[]>("/api/v1/domains", { signal }) });
  const remove = useAdminMutation();
  return (
    <>
      <AddMapping domains={(domains.data ?? []).filter((d) => !d.archivedAt)} />
      <Card title="Group mapping">
        {mappings.isPending && <Loading />}
        {mappings.isError && <ErrorAlert message={mappings.error.message} />}
        {remove.isError && <ErrorAlert message={remove.error.message} />}
        {mappings.data && mappings.data.length === 0 && <p className="text-sm text-slate-600">No group is mapped: SSO users sign in with no domain and no global role until an admin adds them.</p>}
        {mappings.data && mappings.data.length > 0 && (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="sso-mappings">
              <caption className="sr-only">Group mapping</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr><th scope="col" className="py-2 pr-4">Group (claim value)</th><th scope="col" className="py-2 pr-4">Grants</th><th scope="col" className="py-2"><span className="sr-only">Actions</span></th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {mappings.data.map((m) => (
                  <tr key={m.id} data-testid="sso-mapping">
                    <td className="py-2 pr-4 font-mono text-xs">{m.group}</td>
                    <td className="py-2 pr-4">
                      {m.domain ? <><span className="font-medium">{m.role === "OWNER" ? "Owner" : "Member"}</span> of {m.domain.name} <span className="font-mono text-xs text-slate-500">{m.domain.slug}</span>{m.domain.archivedAt && " (archived: ignored)"}</> : <><span className="font-medium">{m.globalRole === "ADMIN" ? "Platform admin" : "Governance reviewer"}</span> (global)</>}
                    </td>
                    <td className="py-2 text-right">
                      <Button variant="ghost" disabled={remove.isPending} onClick={() => remove.mutate({ method: "DELETE", path: `/api/v1/sso/group-mappings/${m.id}` })} aria-label={`Remove mapping of ${m.group}`}>Remove</Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </>
  );
}

function AddMapping({ domains }: { domains: AdminDomain[] }) {
  const add = useAdminMutation();
  const [target, setTarget] = useState<"domain" | "global">("domain");
  const [form, setForm] = useState({ group: "", domainId: "", role: "MEMBER", globalRole: "GOVERNANCE" });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = target === "domain" ? { group: form.group, domainId: form.domainId || undefined, role: form.role } : { group: form.group, globalRole: form.globalRole };
    add.mutate({ method: "POST", path: "/api/v1/sso/group-mappings", body }, {
      // Clears the group that was added, from the form as it is now: anything typed or
      // chosen while the request was on its way stays (the submit-time copy would undo it).
      onSuccess: () => setForm((now) => (now.group === body.group ? { ...now, group: "" } : now)),
    });
  }
  const errors = add.error?.fields ?? {};
  return (
    <Card title="Map a group">
      <form onSubmit={submit} className="space-y-3" aria-label="Map a group">
        <Field id="sso-group" label="Group" hint="Exactly as the provider sends it in the groups claim (case matters)." errors={errors.group}>
          {(p) => <input {...p} className={`${inputClass} max-w-md`} value={form.group} onChange={(e) => setForm({ ...form, group: e.target.value })} required />}
        </Field>
        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Grants</legend>
          <div className="mt-1 flex flex-wrap gap-4 text-sm">
            <label className="flex items-center gap-2"><input type="radio" name="sso-target" checked={target === "domain"} onChange={() => setTarget("domain")} /> A role in a domain</label>
            <label className="flex items-center gap-2"><input type="radio" name="sso-target" checked={target === "global"} onChange={() => setTarget("global")} /> A global role</label>
          </div>
        </fieldset>
        {target === "domain" ? (
          <div className="grid gap-3 sm:grid-cols-2">
            <Field id="sso-domain" label="Domain" errors={errors.domainId}>
              {(p) => (
                <select {...p} className={inputClass} value={form.domainId} onChange={(e) => setForm({ ...form, domainId: e.target.value })}>
                  <option value="">Choose…</option>
                  {domains.map((d) => <option key={d.id} value={d.id}>{d.name} ({d.slug})</option>)}
                </select>
              )}
            </Field>
            <Field id="sso-role" label="Domain role" errors={errors.role}>
              {(p) => (
                <select {...p} className={inputClass} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
                  <option value="MEMBER">Member</option>
                  <option value="OWNER">Owner</option>
                </select>
              )}
            </Field>
          </div>
        ) : (
          <Field id="sso-global-role" label="Global role" errors={errors.globalRole}>
            {(p) => (
              <select {...p} className={`${inputClass} max-w-xs`} value={form.globalRole} onChange={(e) => setForm({ ...form, globalRole: e.target.value })}>
                <option value="GOVERNANCE">Governance reviewer</option>
                <option value="ADMIN">Platform admin</option>
              </select>
            )}
          </Field>
        )}
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={add.isPending}>Add mapping</Button>
          {add.isError && !errors.group && !errors.domainId && <ErrorAlert message={add.error.message} />}
        </div>
      </form>
    </Card>
  );
}
