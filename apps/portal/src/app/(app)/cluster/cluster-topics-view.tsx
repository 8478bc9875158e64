"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "@/components/link";
import { Age } from "@/components/relative-time";
import { Badge, ButtonLink, Card, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { ClusterTopicPage, ClusterTopicRow } from "@/lib/api-types";
import { useDebounced } from "@/lib/use-debounced";

interface Acl { principal: string; operation: string; permission: string; patternType: string; resourceName: string; host: string }
interface Group { groupId: string; state: string; members: number; committedPartitions: number }

const asAcls = (v: unknown): Acl[] => (Array.isArray(v) ? (v as Acl[]) : []);
const asGroups = (v: unknown): Group[] => (Array.isArray(v) ? (v as Group[]) : []);
const asConfigs = (v: unknown): [string, string][] => (v && typeof v === "object" ? Object.entries(v as Record<string, string>) : []);

function bytes(v: string | number | null): string {
  if (v === null) return "unknown";
  const n = Number(v);
  return n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

export function ClusterTopicsView({ canClaim }: { canClaim: boolean }) {
  const [managed, setManaged] = useState<"" | "true" | "false">("false");
  const [q, setQ] = useState("");
  const search = useDebounced(q.trim(), 250);
  const filters = { managed: managed || undefined, q: search || undefined };
  const topics = useQuery({
    queryKey: ["cluster-topics", filters],
    queryFn: ({ signal }) => api<ClusterTopicPage>(`/api/v1/cluster/topics${toQueryString(filters)}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  return (
    <div className="space-y-4">
      <Card>
        <div className="grid gap-3 sm:grid-cols-[12rem_1fr]">
          <div>
            <label htmlFor="managed" className="block text-sm font-medium">Show</label>
            <select id="managed" className={`${inputClass} mt-1`} value={managed} onChange={(e) => setManaged(e.target.value as "" | "true" | "false")}>
              <option value="false">Unmanaged topics</option>
              <option value="true">Managed (data products)</option>
              <option value="">All topics</option>
            </select>
          </div>
          <div>
            <label htmlFor="topic-search" className="block text-sm font-medium">Topic name</label>
            <input id="topic-search" type="search" className={`${inputClass} mt-1`} value={q} onChange={(e) => setQ(e.target.value)} placeholder="contains…" />
          </div>
        </div>
        {topics.data?.observedAt && <p className="mt-2 text-xs text-slate-500">Last scanned <Age iso={topics.data.observedAt} /> ago · refreshed every 30 s</p>}
      </Card>
      {topics.isPending && <Loading />}
      {topics.isError && <ErrorAlert message={topics.error.message} />}
      {topics.data && topics.data.items.length === 0 && <EmptyState title="No topics match">{topics.data.observedAt ? null : "The worker has not scanned the cluster yet."}</EmptyState>}
      {topics.data && topics.data.items.length > 0 && (
        <ul className="space-y-3" aria-label="Topics">
          {topics.data.items.map((t) => <TopicRow key={t.name} topic={t} canClaim={canClaim} />)}
        </ul>
      )}
    </div>
  );
}

function TopicRow({ topic: t, canClaim }: { topic: ClusterTopicRow; canClaim: boolean }) {
  const acls = asAcls(t.acls);
  const groups = asGroups(t.groups);
  const configs = asConfigs(t.configs);
  return (
    <li className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200" data-testid="cluster-topic" data-topic={t.name}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0">
          <span className="break-all font-mono text-sm font-medium">{t.name}</span>{" "}
          {t.managed ? <Badge value="ACTIVE" label="managed" /> : <Badge value="DRAFT" label="unmanaged" />}
        </div>
        {t.managed && t.productId ? (
          <Link href={`/products/${t.productId}`} className="text-sm font-medium text-indigo-700 hover:underline">Open product<span className="sr-only"> of {t.name}</span></Link>
        ) : canClaim ? (
          <div className="flex flex-col items-end gap-1">
            <ButtonLink variant="secondary" href={`/cluster/claim?topic=${encodeURIComponent(t.name)}`} aria-label={`Claim ${t.name} as data product`}>Claim as data product</ButtonLink>
            {t.claimableBy && <p className="text-xs text-slate-600" data-testid="claim-who">Under the {t.claimableBy.domainName} domain&apos;s prefix: only its owners can claim it.</p>}
          </div>
        ) : (
          <p className="text-xs text-slate-600" data-testid="claim-who">
            {t.claimableBy
              ? `Unmanaged: its name lies under the ${t.claimableBy.domainName} domain's prefix ("${t.claimableBy.domainSlug}."), so only that domain's owners can claim it as a data product (you own no domain).`
              : "Unmanaged: an owner of a domain can claim it as a data product of that domain (you own no domain)."}
          </p>
        )}
      </div>
      <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
        <div><dt className="text-xs text-slate-500">Partitions</dt><dd>{t.partitions}</dd></div>
        {!t.managed && <div><dt className="text-xs text-slate-500">Records (end − start)</dt><dd data-testid="topic-records">{t.endOffset !== null && t.earliestOffset !== null ? (BigInt(t.endOffset) - BigInt(t.earliestOffset)).toString() : "unknown"}</dd></div>}
        {!t.managed && <div><dt className="text-xs text-slate-500">End offsets (sum)</dt><dd>{t.endOffset ?? "unknown"}</dd></div>}
        {!t.managed && <div><dt className="text-xs text-slate-500">Size on disk</dt><dd>{bytes(t.sizeBytes)}</dd></div>}
      </dl>
      {(!t.managed || groups.length > 0 || acls.length > 0) && (
        <details className="mt-2 text-sm">
          <summary className="cursor-pointer text-indigo-700">Configs, consumer groups and ACLs</summary>
          <div className="mt-2 grid gap-4 md:grid-cols-3">
            <div>
              <h3 className="text-xs font-semibold uppercase text-slate-500">Config overrides</h3>
              {configs.length === 0 ? <p className="text-slate-500">none (cluster defaults)</p> : <ul className="font-mono text-xs">{configs.map(([k, v]) => <li key={k}>{k}={v}</li>)}</ul>}
            </div>
            <div>
              <h3 className="text-xs font-semibold uppercase text-slate-500">Consumer groups</h3>
              {groups.length === 0 ? <p className="text-slate-500">none with commits</p> : <ul className="text-xs">{groups.map((g) => <li key={g.groupId}><span className="font-mono">{g.groupId}</span> · {g.state} · {g.members} members</li>)}</ul>}
            </div>
            <div>
              <h3 className="text-xs font-semibold uppercase text-slate-500">ACLs</h3>
              {acls.length === 0 ? <p className="text-slate-500">none</p> : (
                <ul className="text-xs" data-testid="topic-acls">{acls.map((a, i) => <li key={i}><span className="font-mono">{a.principal}</span> {a.permission} {a.operation}{a.patternType === "PREFIXED" ? ` (prefix ${a.resourceName})` : a.resourceName === "*" ? " (all topics)" : ""}</li>)}</ul>
              )}
            </div>
          </div>
        </details>
      )}
    </li>
  );
}
