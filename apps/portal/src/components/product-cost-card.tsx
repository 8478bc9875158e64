"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/lib/api-client";
import { formatMoney, type ProductCost } from "@/lib/costs";
import { LazyCostChart } from "./lazy-cost-chart";
import { Link } from "./link";
import { Button, Card, ErrorAlert, Loading } from "./ui";

/** A product's cost this month and the months before (its domain and admins; see the Costs page for the split). */
export function ProductCostCard({ productId }: { productId: string }) {
  const [chart, setChart] = useState(false);
  const cost = useQuery({ queryKey: ["products", productId, "cost"], queryFn: ({ signal }) => api<ProductCost>(`/api/v1/products/${productId}/cost`, { signal }) });
  return (
    <Card title="Cost" actions={<Link href="/costs" className="text-xs">All costs</Link>}>
      {cost.isPending ? <Loading /> : null}
      {cost.isError ? <ErrorAlert message={cost.error.message} /> : null}
      {cost.data ? (
        <div className="space-y-2 text-sm" data-testid="product-cost">
          <p>
            This month ({cost.data.month}): <strong data-testid="product-cost-month">{formatMoney(cost.data.total, cost.data.currency)}</strong>
            {Number(cost.data.chargedToConsumers) > 0 ? <span className="text-slate-500"> · {formatMoney(cost.data.chargedToConsumers, cost.data.currency)} charged to its consumers</span> : null}
          </p>
          <ol className="flex flex-wrap gap-x-3 text-xs text-slate-600" aria-label="Cost per month">
            {cost.data.trend.map((t) => (
              <li key={t.month}>
                {t.month}: {formatMoney(t.total, cost.data.currency)}
              </li>
            ))}
          </ol>
          <Button variant="secondary" aria-expanded={chart} onClick={() => setChart((v) => !v)}>
            {chart ? "Hide trend chart" : "Trend chart"}
          </Button>
          {chart ? <LazyCostChart height="h-40" currency={cost.data.currency} label={`Cost per month: ${cost.data.trend.map((t) => `${t.month} ${formatMoney(t.total, cost.data.currency)}`).join(", ")}.`} series={[{ name: "cost", points: cost.data.trend }]} /> : null}
        </div>
      ) : null}
    </Card>
  );
}
