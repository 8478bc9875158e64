"use client";

import { Bar, BarChart, CartesianGrid, Label, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
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

/**
 * One bar per minute: the rate the worker measured over that minute (end
 * offsets a minute apart), not a curve through the points — a smoothed line
 * would draw traffic between samples that nobody measured. A minute without a
 * measurement has no bar.
 */
export function ThroughputChart({ points, label }: { points: { t: number; rate: number | null }[]; label: string }) {
  return (
    <div role="img" aria-label={label} className="h-40 w-full" data-testid="throughput-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: 8 }} barCategoryGap={1}>
          <CartesianGrid stroke="#e2e8f0" vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={56} allowDecimals tickFormatter={(v: number) => formatCount(v)}>
            <Label value="msg/s" angle={-90} position="insideLeft" style={{ fontSize: 11, fill: "#64748b" }} />
          </YAxis>
          <Tooltip labelFormatter={(l) => `minute from ${tooltipLabel(l)}`} formatter={(v) => [formatRate(typeof v === "number" ? v : null), "average over the minute"]} />
          <Bar dataKey="rate" fill="#6366f1" isAnimationActive={false} />
        </BarChart>
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

/**
 * A measured figure per minute (lag in records or seconds, a product's
 * freshness) against its objective, drawn as a dashed line: steps, not curves,
 * between the worker's one-minute samples.
 */
export function ObjectiveChart({ series, objective, unit, label, testId }: { series: LagSeries; objective: number | null; unit: string; label: string; testId?: string }) {
  return (
    <div role="img" aria-label={label} className="h-48 w-full" data-testid={testId ?? "objective-chart"}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={series.points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e2e8f0" vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={56} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} domain={[0, (max: number) => Math.max(max, objective ?? 0)]}>
            <Label value={unit} angle={-90} position="insideLeft" style={{ fontSize: 11, fill: "#64748b" }} />
          </YAxis>
          <Tooltip labelFormatter={tooltipLabel} formatter={(v, name) => [`${formatCount(typeof v === "number" ? v : null)} ${unit}`, String(name)]} />
          {series.groups.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
          {objective !== null && <ReferenceLine y={objective} stroke="#e11d48" strokeDasharray="4 3" label={{ value: `objective ${formatCount(objective)} ${unit}`, position: "insideTopRight", fontSize: 11, fill: "#be123c" }} />}
          {series.groups.map((g, i) => (
            <Line key={g} type="stepAfter" dataKey={g} stroke={COLORS[i % COLORS.length]} strokeWidth={2} dot={false} connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
