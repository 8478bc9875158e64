"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useActor } from "@/components/actor-context";
import { Age } from "@/components/relative-time";
import { Badge, Button, Card, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { AdminUser, UserPage } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useAdminMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { useDebounced } from "@/lib/use-debounced";

const ROLE_HELP: Record<string, string> = {
  USER: "no platform-wide rights",
  GOVERNANCE: "reviews products, subscriptions and changes; reads the audit log",
  ADMIN: "manages domains, people, SSO and the platform; reads the audit log",
};

export function UsersView() {
  const [q, setQ] = useState("");
  const search = useDebounced(q.trim(), 250);
  // A new search starts at page 1: the page is remembered together with the search it belongs to.
  const [paging, setPaging] = useState({ search, page: 1 });
  const page = paging.search === search ? paging.page : 1;
  const setPage = (next: number) => setPaging({ search, page: next });
  const filters = { q: search || undefined, page: page > 1 ? page : undefined };
  const users = useQuery({
    queryKey: queryKeys.admin.users(filters),
    queryFn: ({ signal }) => api<UserPage>(`/api/v1/users${toQueryString(filters)}`, { signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <div className="space-y-4">
      <Card>
        <label htmlFor="user-search" className="block text-sm font-medium">Find people</label>
        <input id="user-search" type="search" className={`${inputClass} mt-1 max-w-md`} value={q} onChange={(e) => setQ(e.target.value)} placeholder="e-mail or name…" />
        <dl className="mt-3 grid gap-1 text-xs text-slate-600 sm:grid-cols-3">
          {Object.entries(ROLE_HELP).map(([role, help]) => <div key={role}><dt className="inline font-semibold">{role}</dt> <dd className="inline">— {help}</dd></div>)}
        </dl>
      </Card>
      {users.isPending && <Loading />}
      {users.isError && <ErrorAlert message={users.error.message} />}
      {users.data && (
        <Card title={`People (${users.data.total})`}>
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="users-table">
              <caption className="sr-only">People and their roles</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th scope="col" className="py-2 pr-4">Person</th>
                  <th scope="col" className="py-2 pr-4">Global role</th>
                  <th scope="col" className="py-2 pr-4">Domains</th>
                  <th scope="col" className="py-2 pr-4">Sign-in</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 align-top">
                {users.data.items.map((u) => <UserRow key={u.id} user={u} />)}
              </tbody>
            </table>
          </div>
          {users.data.pageCount > 1 && (
            <nav aria-label="Pagination" className="mt-4 flex items-center justify-between">
              <Button variant="secondary" disabled={users.data.page <= 1} onClick={() => setPage(users.data.page - 1)}>Previous</Button>
              <span className="text-sm text-slate-600">Page {users.data.page} of {users.data.pageCount}</span>
              <Button variant="secondary" disabled={users.data.page >= users.data.pageCount} onClick={() => setPage(users.data.page + 1)}>Next</Button>
            </nav>
          )}
        </Card>
      )}
    </div>
  );
}

function UserRow({ user }: { user: AdminUser }) {
  const me = useActor();
  const change = useAdminMutation();
  const self = user.id === me.id;
  return (
    <tr data-testid="user-row" data-email={user.email}>
      <td className="py-2 pr-4">
        <div className="font-medium text-slate-900">{user.name}</div>
        <div className="text-xs text-slate-500">{user.email}</div>
      </td>
      <td className="py-2 pr-4">
        <label htmlFor={`global-${user.id}`} className="sr-only">Global role of {user.email}</label>
        <select
          id={`global-${user.id}`}
          className={`${inputClass} w-40`}
          value={user.globalRole}
          disabled={self || change.isPending}
          title={self ? "Another admin must change your own role." : undefined}
          onChange={(e) => change.mutate({ method: "PATCH", path: `/api/v1/users/${user.id}`, body: { globalRole: e.target.value } })}
        >
          <option value="USER">User</option>
          <option value="GOVERNANCE">Governance</option>
          <option value="ADMIN">Admin</option>
        </select>
        {user.globalRoleSource === "SSO" && <span className="ml-2"><Badge value="APPROVED" label="from SSO" /></span>}
        {self && <p className="mt-1 text-xs text-slate-500">Your own role: another admin changes it.</p>}
        {change.isError && <ErrorAlert message={change.error.message} />}
      </td>
      <td className="py-2 pr-4">
        {user.memberships.length === 0 ? <span className="text-slate-500">—</span> : (
          <ul className="space-y-0.5">
            {user.memberships.map((m) => (
              <li key={m.domainId}>
                <span className="font-mono text-xs">{m.domainSlug}</span> {m.role.toLowerCase()}
                {m.source === "SSO" && <span className="text-xs text-slate-500"> (SSO)</span>}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className="py-2 pr-4 text-xs text-slate-600">
        {user.localPassword ? "local password" : "single sign-on only"}
        {user.lastSignInAt && <div>last sign-in {formatDateTime(user.lastSignInAt)} (<Age iso={user.lastSignInAt} /> ago)</div>}
      </td>
    </tr>
  );
}
