"use client";

import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock, formatCount, formatRate, type LagSeries } from "@/lib/observations";

/*
 * Small time-series charts (recharts). Each is an image to assistive tech with
 * a one-sentence summary as its label; the exact figures are in the tables
 * next to them.
 */

const COLORS = ["#4f46e5", "#0891b2", "#d97706", "#db2777", "#059669", "#7c3aed"];
const AXIS = { fontSize: 11, fill: "#64748b" };

function timeAxis() {
  return <XAxis dataKey="t" type="number" scale="time" domain={["dataMin", "dataMax"]} tickFormatter={formatClock} tick={AXIS} minTickGap={40} />;
}

function tooltipLabel(label: unknown): string {
  return typeof label === "number" ? `${formatClock(label)} UTC` : String(label);
}

export function ThroughputChart({ points, label }: { points: { t: number; rate: number | null }[]; label: string }) {
  return (
    <div role="img" aria-label={label} className="h-36 w-full" data-testid="throughput-chart">
      <ResponsiveContainer width="100%" height="100%">
        <AreaChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e2e8f0" vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={48} allowDecimals tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip labelFormatter={tooltipLabel} formatter={(v) => [formatRate(typeof v === "number" ? v : null), "throughput"]} />
          <Area type="monotone" dataKey="rate" stroke="#4f46e5" fill="#e0e7ff" strokeWidth={2} connectNulls={false} isAnimationActive={false} />
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}

export function LagChart({ series, label, names }: { series: LagSeries; label: string; names?: Record<string, string> }) {
  return (
    <div role="img" aria-label={label} className="h-48 w-full" data-testid="lag-chart">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={series.points} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e2e8f0" vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={56} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip labelFormatter={tooltipLabel} formatter={(v, name) => [`${formatCount(typeof v === "number" ? v : null)} messages`, names?.[String(name)] ?? String(name)]} />
          {series.groups.length > 1 && <Legend formatter={(name: string) => names?.[name] ?? name} wrapperStyle={{ fontSize: 12 }} />}
          {series.groups.map((g, i) => (
            <Line key={g} type="stepAfter" dataKey={g} stroke={COLORS[i % COLORS.length]} strokeWidth={2} dot={false} connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
