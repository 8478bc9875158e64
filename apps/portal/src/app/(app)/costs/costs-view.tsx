"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { LazyCostChart } from "@/components/lazy-cost-chart";
import { Link } from "@/components/link";
import { Button, Card, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import { costsCsv, formatBytes, formatMoney, type CostDomain, type Costs } from "@/lib/costs";

const thisMonth = () => new Date().toISOString().slice(0, 7);

function download(name: string, type: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

export function CostsView() {
  const [month, setMonth] = useState(thisMonth);
  const [showChart, setShowChart] = useState(false);
  const costs = useQuery({
    queryKey: ["costs", month],
    queryFn: ({ signal }) => api<Costs>(`/api/v1/costs?month=${encodeURIComponent(month)}`, { signal }),
  });
  const data = costs.data;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end gap-4">
        <label className="text-sm font-medium text-slate-700">
          Month
          <input
            type="month"
            className={`${inputClass} mt-1 w-44`}
            value={month}
            max={thisMonth()}
            onChange={(e) => {
              if (/^\d{4}-\d{2}$/.test(e.target.value)) setMonth(e.target.value);
            }}
          />
        </label>
        {data ? (
          <div className="flex gap-2">
            <Button variant="secondary" onClick={() => download(`kappa-costs-${data.month}.csv`, "text/csv", costsCsv(data))}>
              Export CSV
            </Button>
            <Button variant="secondary" onClick={() => download(`kappa-costs-${data.month}.json`, "application/json", JSON.stringify(data, null, 2))}>
              Export JSON
            </Button>
            <Button variant="secondary" aria-expanded={showChart} onClick={() => setShowChart((v) => !v)}>
              {showChart ? "Hide chart" : "Chart over months"}
            </Button>
          </div>
        ) : null}
      </div>
      {costs.isPending ? <Loading /> : null}
      {costs.isError ? <ErrorAlert message={costs.error.message} /> : null}
      {data ? <CostsBody data={data} showChart={showChart} /> : null}
    </div>
  );
}

function CostsBody({ data, showChart }: { data: Costs; showChart: boolean }) {
  const money = (amount: string) => formatMoney(amount, data.currency);
  return (
    <>
      <dl className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <div className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
          <dt className="text-xs uppercase tracking-wide text-slate-500">{data.scope === "platform" ? "Platform total" : "Your domains' total"}</dt>
          <dd className="mt-1 text-2xl font-semibold" data-testid="costs-total">
            {money(data.platformTotal ?? data.total)}
          </dd>
        </div>
        <div className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
          <dt className="text-xs uppercase tracking-wide text-slate-500">Chargeback</dt>
          <dd className="mt-1 text-sm">
            {data.chargeback === "consumers" ? "A product's cost is shared by its consuming domains, by the bytes each read." : "Each producing domain bears its products' cost."}
          </dd>
        </div>
        <div className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
          <dt className="text-xs uppercase tracking-wide text-slate-500">Price list (policy v{data.policyVersion})</dt>
          <dd className="mt-1 text-xs text-slate-600">
            {data.currency} {data.prices.hotStorageGbMonth}/GB-month hot, {data.prices.tieredStorageGbMonth}/GB-month tiered, {data.prices.gbIn}/GB in, {data.prices.gbOut}/GB out,{" "}
            {data.prices.partitionHour}/partition-hour
          </dd>
        </div>
      </dl>
      {showChart ? (
        <Card title="Cost over months">
          <LazyCostChart
            currency={data.currency}
            label={`Cost per month by domain, ${data.trend[0]?.month ?? ""} to ${data.month}: ${data.trend.map((t) => `${t.month} ${money(t.total)}`).join(", ")}.`}
            series={data.domains.map((d) => ({ name: d.slug, points: d.trend }))}
          />
        </Card>
      ) : null}
      {data.domains.length === 0 ? <EmptyState title="No domains">You are not a member of any domain; costs are shown per domain.</EmptyState> : null}
      {data.domains.map((d) => (
        <DomainCosts key={d.id} domain={d} money={money} />
      ))}
    </>
  );
}

function DomainCosts({ domain: d, money }: { domain: CostDomain; money: (amount: string) => string }) {
  return (
    <section aria-labelledby={`costs-${d.slug}`} data-testid={`domain-costs-${d.slug}`}>
      <Card
        title={
          <span id={`costs-${d.slug}`}>
            {d.name} <span className="font-normal text-slate-500">({d.slug})</span>: <span data-testid="domain-total">{money(d.total)}</span>
          </span>
        }
      >
        <p className="mb-3 text-sm text-slate-600">
          Its products cost {money(d.ownProductsCost)}; {money(d.chargedToOthers)} of that is charged to other domains. Charged to {d.slug} for what it reads: {money(d.chargedToThisDomain)}.
        </p>
        {d.products.length === 0 ? (
          <p className="text-sm text-slate-500">No product of this domain had usage this month.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Cost of {d.name}&apos;s products by product</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th scope="col" className="py-2 pr-3">Product</th>
                  <th scope="col" className="py-2 pr-3">In / out</th>
                  <th scope="col" className="py-2 pr-3">Storage hot / tiered</th>
                  <th scope="col" className="py-2 pr-3">Partition-hours</th>
                  <th scope="col" className="py-2 pr-3 text-right">Cost</th>
                  <th scope="col" className="py-2">Charged to</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {d.products.map((p) => (
                  <tr key={p.id} data-testid="product-cost-row">
                    <td className="py-2 pr-3">
                      <Link href={`/products/${p.id}`}>{p.name}</Link>
                    </td>
                    <td className="py-2 pr-3">
                      {formatBytes(p.usage.bytesIn)} / {formatBytes(p.usage.bytesOut)}
                    </td>
                    <td className="py-2 pr-3">
                      {p.usage.hotStorageGbMonth.toFixed(2)} / {p.usage.tieredStorageGbMonth.toFixed(2)} GB-month
                    </td>
                    <td className="py-2 pr-3">{p.usage.partitionHours.toFixed(0)}</td>
                    <td className="py-2 pr-3 text-right font-medium">{money(p.cost.total)}</td>
                    <td className="py-2">
                      <ul>
                        {p.split
                          .filter((s) => Number(s.amount) > 0)
                          .map((s) => (
                            <li key={s.domainId}>
                              {s.slug}: {money(s.amount)} <span className="text-slate-500">({formatBytes(s.bytesRead)} read)</span>
                            </li>
                          ))}
                        {Number(p.producerShare) > 0 ? (
                          <li>
                            {d.slug} (producer): {money(p.producerShare)}
                          </li>
                        ) : null}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {d.charges.length > 0 ? (
          <div className="mt-4">
            <h3 className="text-sm font-semibold">Charged to {d.slug} for products it reads</h3>
            <ul className="mt-1 text-sm" data-testid="charges">
              {d.charges.map((c) => (
                <li key={c.productId}>
                  {c.productName} ({c.producerDomain}): {money(c.amount)} <span className="text-slate-500">for {formatBytes(c.bytesRead)} read</span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Card>
    </section>
  );
}
