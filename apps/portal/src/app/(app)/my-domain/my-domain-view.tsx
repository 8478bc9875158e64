"use client";

import { useQuery } from "@tanstack/react-query";
import { Link } from "@/components/link";
import { Ago } from "@/components/relative-time";
import { ServiceAccountForm } from "@/components/service-account-form";
import { SupersededSubscriptions } from "@/components/successor-notice";
import { Badge, ButtonLink, Card, EmptyState, ErrorAlert, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { MyDomain } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

export function MyDomainView() {
  const domains = useQuery({ queryKey: queryKeys.myDomains, queryFn: ({ signal }) => api<MyDomain[]>("/api/v1/my-domains", { signal }) });
  if (domains.isPending) return <Loading />;
  if (domains.isError) return <ErrorAlert message={domains.error.message} />;
  if (domains.data.length === 0) return <EmptyState title="You are not a member of any domain">Ask a platform admin to add you to your team&apos;s domain.</EmptyState>;
  return (
    <div className="space-y-10">
      <SupersededSubscriptions />
      {domains.data.map((d) => (
        <DomainSection key={d.id} domain={d} />
      ))}
    </div>
  );
}

function DomainSection({ domain: d }: { domain: MyDomain }) {
  const owner = d.role === "OWNER";
  return (
    <section aria-labelledby={`domain-${d.id}`} className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id={`domain-${d.id}`} className="text-xl font-semibold">{d.name} <span className="font-mono text-sm text-slate-500">({d.slug})</span></h2>
          <p className="text-sm text-slate-600">{d.description} · you are {owner ? "an owner" : "a member"}</p>
        </div>
        {owner && (
          <div className="flex flex-wrap gap-2">
            <ButtonLink variant="secondary" href={`/admin/domains/${d.id}`}>Manage members</ButtonLink>
            <ButtonLink variant="secondary" href={`/domains/${d.id}/webhooks`}>Webhooks</ButtonLink>
            <ButtonLink href="/products/new">Register a product</ButtonLink>
          </div>
        )}
      </div>

      <Card title={`Products (${d.products.length})`}>
        {d.products.length === 0 ? (
          <p className="text-sm text-slate-600">No products yet.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-xs uppercase text-slate-500">
                <tr><th scope="col" className="py-2 pr-4">Name</th><th scope="col" className="py-2 pr-4">Topic</th><th scope="col" className="py-2 pr-4">Status</th><th scope="col" className="py-2 pr-4">Subscriptions</th><th scope="col" className="py-2">Updated</th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {d.products.map((p) => (
                  <tr key={p.id}>
                    <td className="py-2 pr-4"><Link href={`/products/${p.id}`} className="font-medium text-indigo-700 hover:underline">{p.name}</Link></td>
                    <td className="py-2 pr-4 font-mono text-xs">{p.topicName}</td>
                    <td className="py-2 pr-4"><Badge value={p.status} /></td>
                    <td className="py-2 pr-4">{p._count.subscriptions}</td>
                    <td className="py-2 text-slate-500"><Ago iso={p.updatedAt} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title={`Service accounts (${d.serviceAccounts.length})`}>
          <ul className="mb-4 divide-y divide-slate-100 text-sm">
            {d.serviceAccounts.map((a) => (
              <li key={a.id} className="py-2">
                <span className="font-mono">User:{a.name}</span>
                {a.isProducer && <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs">producer</span>}
                {a.description && <p className="text-xs text-slate-500">{a.description}</p>}
              </li>
            ))}
            {d.serviceAccounts.length === 0 && <li className="py-2 text-slate-600">No service accounts yet.</li>}
          </ul>
          {owner && <ServiceAccountForm domainId={d.id} domainSlug={d.slug} compact />}
        </Card>

        <div className="space-y-6">
          <Card title="Subscriptions out (we consume)">
            <SubscriptionList
              items={d.subscriptions.map((s) => ({ id: s.id, productId: s.product.id, title: s.product.name, sub: `${s.product.topicName} · User:${s.serviceAccount.name}`, status: s.status, at: s.createdAt, note: s.product.sunsetAt ? `Product sunsets ${formatDateTime(s.product.sunsetAt)}` : s.reason }))}
              empty="This domain consumes no products yet."
            />
          </Card>
          <Card title="Subscriptions in (others consume ours)">
            <SubscriptionList
              items={d.incomingSubscriptions.map((s) => ({ id: s.id, productId: s.product.id, title: `${s.consumingDomain.name} → ${s.product.name}`, sub: `User:${s.serviceAccount.name}`, status: s.status, at: s.createdAt, note: s.purpose }))}
              empty="Nobody subscribes to this domain's products yet."
            />
          </Card>
        </div>
      </div>
    </section>
  );
}

function SubscriptionList({ items, empty }: { items: { id: string; productId: string; title: string; sub: string; status: string; at: string; note?: string | null }[]; empty: string }) {
  if (items.length === 0) return <p className="text-sm text-slate-600">{empty}</p>;
  return (
    <ul className="divide-y divide-slate-100 text-sm">
      {items.map((s) => (
        <li key={s.id} className="flex items-start justify-between gap-3 py-2">
          <div className="min-w-0">
            <Link href={`/subscriptions/${s.id}`} className="font-medium text-indigo-700 hover:underline">{s.title}</Link>
            <p className="font-mono text-xs text-slate-500">{s.sub}</p>
            <p className="text-xs">
              <Link href={`/products/${s.productId}`} className="text-slate-600 hover:underline">Product page</Link>
            </p>
            {s.note && <p className="text-xs text-slate-600">{s.note}</p>}
            <p className="text-xs text-slate-400"><Ago iso={s.at} /></p>
          </div>
          <Badge value={s.status} />
        </li>
      ))}
    </ul>
  );
}
