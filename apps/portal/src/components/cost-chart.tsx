"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/*
 * Cost per month (recharts), one stacked bar per month with a segment per
 * series (a domain, or one product). Loaded only when shown (see the Costs
 * page and the product page's cost card): the figures are in the tables too.
 */

const COLORS = ["var(--chart-1)", "var(--chart-2)", "var(--chart-3)", "var(--chart-4)", "var(--chart-5)", "var(--chart-6)"];
const AXIS = { fontSize: 11, fill: "var(--chart-axis)" };
const TOOLTIP = { contentStyle: { background: "var(--chart-tooltip-bg)", borderColor: "var(--chart-grid)", color: "var(--chart-tooltip-text)", fontSize: 12 }, cursor: { fill: "var(--chart-cursor)" } };

export interface CostSeries {
  name: string;
  points: { month: string; total: string }[];
}

export function CostChart({ series, currency, label, height = "h-56" }: { series: CostSeries[]; currency: string; label: string; height?: string }) {
  const months = series[0]?.points.map((p) => p.month) ?? [];
  const data = months.map((month, i) => Object.fromEntries([["month", month], ...series.map((s) => [s.name, Number(s.points[i]?.total ?? 0)])]) as Record<string, string | number>);
  return (
    <div role="img" aria-label={label} className={`${height} w-full`} data-testid="cost-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          <XAxis dataKey="month" tick={AXIS} />
          <YAxis tick={AXIS} width={64} tickFormatter={(v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 2 })} />
          <Tooltip {...TOOLTIP} formatter={(v, name) => [`${currency} ${typeof v === "number" ? v.toFixed(2) : String(v)}`, name]} />
          {series.length > 1 ? <Legend wrapperStyle={{ fontSize: 12 }} /> : null}
          {series.map((s, i) => (
            <Bar key={s.name} dataKey={s.name} stackId="cost" fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
