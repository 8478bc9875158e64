"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "@/components/link";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Loading, Notice } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { AdminDomain } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useAdminMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

export function DomainsView() {
  const domains = useQuery({ queryKey: queryKeys.admin.domains(), queryFn: ({ signal }) => api<AdminDomain[]>("/api/v1/domains", { signal }) });
  return (
    <div className="space-y-6">
      <CreateDomain />
      <Card title="Domains">
        {domains.isPending && <Loading />}
        {domains.isError && <ErrorAlert message={domains.error.message} />}
        {domains.data && (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="domains-table">
              <caption className="sr-only">Domains</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th scope="col" className="py-2 pr-4">Domain</th>
                  <th scope="col" className="py-2 pr-4">Members</th>
                  <th scope="col" className="py-2 pr-4">Live products</th>
                  <th scope="col" className="py-2 pr-4">Status</th>
                  <th scope="col" className="py-2">Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 align-top">
                {domains.data.map((d) => <DomainRow key={d.id} domain={d} />)}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}

function CreateDomain() {
  const create = useAdminMutation();
  const [form, setForm] = useState({ slug: "", name: "", description: "" });
  const [created, setCreated] = useState<string | null>(null);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setCreated(null);
    create.mutate(
      { method: "POST", path: "/api/v1/domains", body: form },
      { onSuccess: () => { setCreated(form.name); setForm({ slug: "", name: "", description: "" }); } },
    );
  }
  const errors = create.error?.fields ?? {};
  return (
    <Card title="Create a domain">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-3" aria-label="Create a domain">
        <Field id="domain-name" label="Name" errors={errors.name}>
          {(p) => <input {...p} className={inputClass} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value, slug: form.slug || "" })} required />}
        </Field>
        <Field id="domain-slug" label="Slug" hint="First part of every topic and principal; cannot change later." errors={errors.slug}>
          {(p) => <input {...p} className={inputClass} value={form.slug} onChange={(e) => setForm({ ...form, slug: e.target.value })} placeholder="e.g. customer-care" required />}
        </Field>
        <Field id="domain-description" label="Description" errors={errors.description}>
          {(p) => <input {...p} className={inputClass} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />}
        </Field>
        <div className="sm:col-span-3 flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={create.isPending}>Create domain</Button>
          {create.isError && !create.error.fields?.slug && !create.error.fields?.name && <ErrorAlert message={create.error.message} />}
          {created && <Notice>Created {created}.</Notice>}
        </div>
      </form>
    </Card>
  );
}

function DomainRow({ domain }: { domain: AdminDomain }) {
  const change = useAdminMutation();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(domain.name);
  function rename(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    change.mutate({ method: "PATCH", path: `/api/v1/domains/${domain.id}`, body: { name } }, { onSuccess: () => setRenaming(false) });
  }
  return (
    <tr data-testid="domain-row" data-slug={domain.slug}>
      <td className="py-2 pr-4">
        {renaming ? (
          <form onSubmit={rename} className="flex flex-wrap items-center gap-2" aria-label={`Rename ${domain.name}`}>
            <label htmlFor={`rename-${domain.id}`} className="sr-only">New name for {domain.name}</label>
            <input id={`rename-${domain.id}`} className={`${inputClass} w-48`} value={name} onChange={(e) => setName(e.target.value)} />
            <Button type="submit" disabled={change.isPending}>Save</Button>
            <Button variant="ghost" onClick={() => { setRenaming(false); setName(domain.name); }}>Cancel</Button>
          </form>
        ) : (
          <>
            <span className="font-medium text-slate-900">{domain.name}</span>
            <div className="font-mono text-xs text-slate-500">{domain.slug}</div>
          </>
        )}
        {change.isError && <ErrorAlert message={change.error.message} />}
      </td>
      <td className="py-2 pr-4">{domain.members} <span className="text-xs text-slate-500">({domain.owners} {domain.owners === 1 ? "owner" : "owners"})</span></td>
      <td className="py-2 pr-4">{domain.liveProducts}</td>
      <td className="py-2 pr-4">
        {domain.archivedAt ? <Badge value="RETIRED" label={`archived ${formatDateTime(domain.archivedAt)}`} /> : <Badge value="ACTIVE" label="active" />}
      </td>
      <td className="py-2">
        <div className="flex flex-wrap gap-2">
          <Link href={`/admin/domains/${domain.id}`} className="rounded-md px-2 py-1 text-sm font-medium text-indigo-700 hover:bg-indigo-50">
            Members<span className="sr-only"> of {domain.name}</span>
          </Link>
          {!renaming && <Button variant="ghost" onClick={() => setRenaming(true)} aria-label={`Rename ${domain.name}`}>Rename</Button>}
          {domain.archivedAt ? (
            <Button variant="secondary" disabled={change.isPending} onClick={() => change.mutate({ method: "POST", path: `/api/v1/domains/${domain.id}/restore` })} aria-label={`Restore ${domain.name}`}>
              Restore
            </Button>
          ) : (
            <Button variant="secondary" disabled={change.isPending} onClick={() => change.mutate({ method: "POST", path: `/api/v1/domains/${domain.id}/archive` })} aria-label={`Archive ${domain.name}`}>
              Archive
            </Button>
          )}
        </div>
      </td>
    </tr>
  );
}
