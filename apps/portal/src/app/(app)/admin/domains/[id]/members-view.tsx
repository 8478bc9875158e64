"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useActor, usePermissions } from "@/components/actor-context";
import { Link } from "@/components/link";
import { Age } from "@/components/relative-time";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Loading, Notice } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { DomainMembers } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useAdminMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

type Member = DomainMembers["members"][number];

export function MembersView({ domainId }: { domainId: string }) {
  const perms = usePermissions();
  const data = useQuery({
    queryKey: queryKeys.admin.members(domainId),
    queryFn: ({ signal }) => api<DomainMembers>(`/api/v1/domains/${domainId}/members`, { signal }),
  });
  if (data.isPending) return <Loading />;
  if (data.isError) return <ErrorAlert message={data.error.message} />;
  const { domain, members, ssoGroups } = data.data;
  return (
    <div className="space-y-6">
      <p className="text-sm text-slate-600">
        {perms.hasGlobal("domain:manage") && <><Link href="/admin/domains" className="text-indigo-700 hover:underline">All domains</Link> · </>}
        <span className="font-medium text-slate-900" data-testid="domain-name">{domain.name}</span> <span className="font-mono text-xs">{domain.slug}</span>
        {domain.archivedAt && <> · <Badge value="RETIRED" label="archived" /></>}
      </p>
      {!domain.archivedAt && <AddMember domainId={domainId} />}
      <Card title={`Members (${members.length})`}>
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="members-table">
            <caption className="sr-only">Members of {domain.name}</caption>
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th scope="col" className="py-2 pr-4">Person</th>
                <th scope="col" className="py-2 pr-4">Role</th>
                <th scope="col" className="py-2 pr-4">Granted by</th>
                <th scope="col" className="py-2 pr-4">Last sign-in</th>
                <th scope="col" className="py-2"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {members.map((m) => <MemberRow key={m.userId} domainId={domainId} member={m} />)}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Single sign-on groups for this domain">
        {ssoGroups.length === 0 ? (
          <p className="text-sm text-slate-600">No group maps to this domain. {perms.hasGlobal("user:manage") && <Link className="text-indigo-700 hover:underline" href="/admin/sso">Map one</Link>}</p>
        ) : (
          <ul className="space-y-1 text-sm">
            {ssoGroups.map((g) => <li key={g.id}><span className="font-mono">{g.group}</span> → {g.role}</li>)}
          </ul>
        )}
        <p className="mt-2 text-xs text-slate-500">Memberships granted by SSO follow the provider&apos;s groups at each sign-in: removing one here lasts only until that person signs in again while their group still maps here.</p>
      </Card>
    </div>
  );
}

function AddMember({ domainId }: { domainId: string }) {
  const add = useAdminMutation();
  const [form, setForm] = useState({ email: "", role: "MEMBER" });
  const [added, setAdded] = useState<string | null>(null);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setAdded(null);
    add.mutate({ method: "POST", path: `/api/v1/domains/${domainId}/members`, body: form }, { onSuccess: () => { setAdded(form.email); setForm({ email: "", role: "MEMBER" }); } });
  }
  return (
    <Card title="Add a member">
      <form onSubmit={submit} className="grid items-end gap-3 sm:grid-cols-[1fr_12rem_auto]" aria-label="Add a member">
        <Field id="member-email" label="E-mail" hint="Someone without an account gets one; they sign in with single sign-on." errors={add.error?.fields?.email}>
          {(p) => <input {...p} type="email" className={inputClass} value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} required />}
        </Field>
        <Field id="member-role" label="Role" errors={add.error?.fields?.role}>
          {(p) => (
            <select {...p} className={inputClass} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
              <option value="MEMBER">Member</option>
              <option value="OWNER">Owner</option>
            </select>
          )}
        </Field>
        <Button type="submit" disabled={add.isPending}>Add member</Button>
      </form>
      <div className="mt-3 space-y-2">
        {add.isError && !add.error.fields?.email && <ErrorAlert message={add.error.message} />}
        {added && <Notice>Added {added}.</Notice>}
      </div>
    </Card>
  );
}

function MemberRow({ domainId, member }: { domainId: string; member: Member }) {
  const me = useActor();
  const change = useAdminMutation();
  const path = `/api/v1/domains/${domainId}/members/${member.userId}`;
  return (
    <tr data-testid="member-row" data-email={member.user.email}>
      <td className="py-2 pr-4">
        <div className="font-medium text-slate-900">{member.user.name}{member.userId === me.id && <span className="text-xs text-slate-500"> (you)</span>}</div>
        <div className="text-xs text-slate-500">{member.user.email}</div>
      </td>
      <td className="py-2 pr-4">
        <label htmlFor={`role-${member.userId}`} className="sr-only">Role of {member.user.email}</label>
        <select
          id={`role-${member.userId}`}
          className={`${inputClass} w-32`}
          value={member.role}
          disabled={change.isPending}
          onChange={(e) => change.mutate({ method: "PATCH", path, body: { role: e.target.value } })}
        >
          <option value="MEMBER">Member</option>
          <option value="OWNER">Owner</option>
        </select>
        {change.isError && <ErrorAlert message={change.error.message} />}
      </td>
      <td className="py-2 pr-4"><Badge value={member.source === "SSO" ? "APPROVED" : "DRAFT"} label={member.source === "SSO" ? "single sign-on" : "manual"} /></td>
      <td className="py-2 pr-4 text-slate-600" data-testid="last-sign-in">{member.user.lastSignInAt ? <>{formatDateTime(member.user.lastSignInAt)} <span className="text-xs text-slate-500">(<Age iso={member.user.lastSignInAt} /> ago)</span></> : "never"}</td>
      <td className="py-2 text-right">
        <Button variant="ghost" disabled={change.isPending} onClick={() => change.mutate({ method: "DELETE", path })} aria-label={`Remove ${member.user.email}`}>Remove</Button>
      </td>
    </tr>
  );
}
