"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card, ErrorAlert } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { ProductQualityView } from "@/lib/api-types";
import { formatDateTime, formatShare as percent } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

/*
 * Observed quality (issue 29), for everyone who may see the product —
 * consumers decide with it before they subscribe: the share of the records
 * the worker sampled that pass the contract's rules, overall and per rule,
 * and a chart over time. The chart is a picture of figures the text states
 * too (its label says them); nothing is shown as a score that was not
 * measured.
 */

const WINDOWS = [
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
] as const;
type Window = (typeof WINDOWS)[number]["value"];

/** Share passing per point; a gap where nothing was sampled (never drawn as 0 or 100 %). */
function ShareChart({ series, window }: { series: ProductQualityView["series"]; window: string }) {
  const measured = series.filter((p) => p.share !== null);
  if (measured.length === 0) return null;
  const w = 300;
  const h = 48;
  const step = w / series.length;
  const low = Math.min(...measured.map((p) => p.share ?? 1));
  const high = Math.max(...measured.map((p) => p.share ?? 0));
  const label = `Share of sampled records passing every rule over the last ${window}, ${measured.length} of ${series.length} points measured, lowest ${percent(low)}, highest ${percent(high)}, newest ${percent(measured.at(-1)?.share ?? 0)}.`;
  return (
    <svg viewBox={`0 0 ${w} ${h}`} className="h-12 w-full max-w-md" role="img" aria-label={label} data-testid="quality-chart">
      <title>{label}</title>
      {series.map((p, i) =>
        p.share === null ? null : <rect key={p.at} x={i * step} y={h - Math.max(1, p.share * h)} width={Math.max(1, step - 1)} height={Math.max(1, p.share * h)} fill={p.share >= 0.99 ? "var(--chart-bar)" : "#d97706"} />,
      )}
    </svg>
  );
}

export function QualityPanel({ productId }: { productId: string }) {
  const [window, setWindow] = useState<Window>("24h");
  const quality = useQuery({
    queryKey: queryKeys.products.quality(productId, window),
    queryFn: ({ signal }) => api<ProductQualityView>(`/api/v1/products/${productId}/quality?window=${window}`, { signal }),
    refetchInterval: 60_000,
  });
  const data = quality.data;
  const windowLabel = WINDOWS.find((x) => x.value === window)?.label ?? window;
  return (
    <Card
      title="Observed quality"
      actions={
        <label className="flex items-center gap-1 text-xs text-slate-600">
          Window
          <select className="rounded border-slate-300 py-0.5 text-xs" value={window} onChange={(e) => setWindow(e.target.value as Window)}>
            {WINDOWS.map((x) => (
              <option key={x.value} value={x.value}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
      }
    >
      <div data-testid="quality-panel">
        {quality.isError && <ErrorAlert message={quality.error.message} />}
        {!data && !quality.error && <p className="text-sm text-slate-600">Loading…</p>}
        {data && !data.measured && (
          <p className="text-sm text-slate-600" data-testid="quality-score">
            Not measured: the platform has sampled no records of this product in the last {windowLabel}. A score appears once the topic receives records.
          </p>
        )}
        {data?.measured && data.overall.share !== null && (
          <>
            <p className="text-sm text-slate-800" data-testid="quality-score">
              <span className="text-2xl font-semibold">{percent(data.overall.share)}</span> of {data.overall.records.toLocaleString("en")} sampled records passed every rule over the last {windowLabel}
              {data.overall.errored > 0 && <> ({data.overall.errored.toLocaleString("en")} did not decode with the schema)</>}.
            </p>
            <div className="mt-3">
              <ShareChart series={data.series} window={windowLabel} />
            </div>
            <table className="mt-3 w-full text-left text-sm">
              <caption className="sr-only">Share of sampled records passing each rule</caption>
              <thead>
                <tr className="text-xs uppercase tracking-wide text-slate-500">
                  <th scope="col" className="py-1 font-medium">Rule</th>
                  <th scope="col" className="py-1 font-medium">Passing</th>
                  <th scope="col" className="py-1 font-medium">Failed</th>
                </tr>
              </thead>
              <tbody>
                {data.rules.map((r) => (
                  <tr key={r.name} className="border-t border-slate-100" data-testid={`quality-rule-${r.name}`}>
                    <td className="py-1">
                      <span className="font-mono text-xs">{r.name}</span>
                      <span className="block truncate font-mono text-xs text-slate-500" title={r.expression}>{r.expression}</span>
                    </td>
                    <td className="py-1">{r.share === null ? "not measured" : percent(r.share)}</td>
                    <td className="py-1">
                      {r.failed.toLocaleString("en")} of {r.records.toLocaleString("en")}
                      {r.errored > 0 && <span className="block text-xs text-slate-500">{r.errored.toLocaleString("en")} could not be evaluated (let through, as the client does)</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data.lastSampledAt && <p className="mt-2 text-xs text-slate-500">Sampled by the platform from the topic&apos;s new records; last sample {formatDateTime(data.lastSampledAt)}.</p>}
          </>
        )}
      </div>
    </Card>
  );
}
