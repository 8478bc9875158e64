"use client";

import { Bar, BarChart, CartesianGrid, Label, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatBytes, formatClock, formatCount, formatRate, type LagSeries } from "@/lib/observations";

/*
 * Small time-series charts (recharts). Each is an image to assistive tech with
 * a one-sentence summary as its label; the exact figures are in the tables
 * next to them.
 */

/*
 * Colours are the theme's CSS variables (globals.css, --chart-*), not hex
 * codes: the dark palette redefines them, so a chart follows the theme (system
 * setting or the nav's choice) without re-rendering.
 */
const COLORS = ["var(--chart-1)", "var(--chart-2)", "var(--chart-3)", "var(--chart-4)", "var(--chart-5)", "var(--chart-6)"];
const AXIS = { fontSize: 11, fill: "var(--chart-axis)" };
const GRID = "var(--chart-grid)";
const TOOLTIP = {
  contentStyle: { background: "var(--chart-tooltip-bg)", borderColor: "var(--chart-grid)", color: "var(--chart-tooltip-text)", fontSize: 12 },
  cursor: { fill: "var(--chart-cursor)", stroke: "var(--chart-grid)" },
};

/** One sample per minute: a bar is centred on its minute and is at most a minute wide. */
const BUCKET_MS = 60_000;

/**
 * The time axis. `padded` widens the domain by half a minute on each side:
 * a bar is drawn centred on its time, so without it the first and last bars
 * would stick out over the y-axis labels and past the right edge.
 */
function timeAxis(padded = false) {
  const domain: [number | string | ((v: number) => number), number | string | ((v: number) => number)] = padded
    ? [(min: number) => min - BUCKET_MS / 2, (max: number) => max + BUCKET_MS / 2]
    : ["dataMin", "dataMax"];
  return <XAxis dataKey="t" type="number" scale="time" domain={domain} tickFormatter={formatClock} tick={AXIS} minTickGap={40} allowDataOverflow={false} />;
}

/** The unit of the y axis, above it (a rotated label inside the axis ran into the tick values). */
function Unit({ children }: { children: string }) {
  return <p className="pl-1 text-[11px] leading-4 text-slate-500" aria-hidden="true">{children}</p>;
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
    <div role="img" aria-label={label} className="flex h-40 w-full flex-col" data-testid="throughput-chart">
      <Unit>msg/s</Unit>
      <div className="min-h-0 flex-1">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 4, right: 12, bottom: 0, left: 0 }} barCategoryGap={1}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {timeAxis(true)}
          <YAxis tick={AXIS} width={56} allowDecimals tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip {...TOOLTIP} labelFormatter={(l) => `minute from ${tooltipLabel(l)}`} formatter={(v) => [formatRate(typeof v === "number" ? v : null), "average over the minute"]} />
          <Bar dataKey="rate" fill="var(--chart-bar)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      </div>
    </div>
  );
}

export function LagChart({ series, label, names }: { series: LagSeries; label: string; names?: Record<string, string> }) {
  return (
    <div role="img" aria-label={label} className="h-48 w-full" data-testid="lag-chart">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={series.points} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={56} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip {...TOOLTIP} labelFormatter={tooltipLabel} formatter={(v, name) => [`${formatCount(typeof v === "number" ? v : null)} messages`, names?.[String(name)] ?? String(name)]} />
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
    <div role="img" aria-label={label} className="flex h-48 w-full flex-col" data-testid={testId ?? "objective-chart"}>
      <Unit>{unit}</Unit>
      <div className="min-h-0 flex-1">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={series.points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={56} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} domain={[0, (max: number) => Math.max(max, objective ?? 0)]} />
          <Tooltip {...TOOLTIP} labelFormatter={tooltipLabel} formatter={(v, name) => [`${formatCount(typeof v === "number" ? v : null)} ${unit}`, String(name)]} />
          {series.groups.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
          {objective !== null && <ReferenceLine y={objective} stroke="var(--chart-objective)" strokeDasharray="4 3" label={{ value: `objective ${formatCount(objective)} ${unit}`, position: "insideTopRight", fontSize: 11, fill: "var(--chart-objective-label)" }} />}
          {series.groups.map((g, i) => (
            <Line key={g} type="stepAfter" dataKey={g} stroke={COLORS[i % COLORS.length]} strokeWidth={2} dot={false} connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
      </div>
    </div>
  );
}

/**
 * An account's bytes per second per minute against its client quota's byte
 * rate (dashed): how close it runs to the limit the broker throttles at.
 */
export function QuotaUsageChart({ points, limit, label }: { points: { t: number; bytesPerSecond: number }[]; limit: number | null; label: string }) {
  return (
    <div role="img" aria-label={label} className="h-40 w-full" data-testid="quota-chart">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid stroke={GRID} vertical={false} />
          {timeAxis()}
          <YAxis tick={AXIS} width={64} tickFormatter={(v: number) => formatBytes(v)} domain={[0, (max: number) => Math.max(max, limit ?? 0)]}>
            <Label value="per s" angle={-90} position="insideLeft" style={{ fontSize: 11, fill: "var(--chart-axis)" }} />
          </YAxis>
          <Tooltip {...TOOLTIP} labelFormatter={tooltipLabel} formatter={(v) => [`${formatBytes(typeof v === "number" ? v : null)}/s`, "bytes per second"]} />
          {limit !== null && <ReferenceLine y={limit} stroke="var(--chart-objective)" strokeDasharray="4 3" label={{ value: `quota ${formatBytes(limit)}/s`, position: "insideTopRight", fontSize: 11, fill: "var(--chart-objective-label)" }} />}
          <Line type="stepAfter" dataKey="bytesPerSecond" stroke={COLORS[0]} strokeWidth={2} dot={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
