"use client";

import dynamic from "next/dynamic";

/*
 * The charts, loaded after the page is interactive: recharts is the largest
 * library on the product and subscription pages, and nothing else on them
 * waits for it. A placeholder of the chart's own height keeps the layout
 * from shifting when it arrives.
 */
function placeholder(height: string) {
  function ChartPlaceholder() {
    return <div className={`${height} w-full animate-pulse rounded bg-slate-100`} aria-hidden="true" />;
  }
  return ChartPlaceholder;
}

export const ThroughputChart = dynamic(() => import("./charts").then((m) => m.ThroughputChart), { ssr: false, loading: placeholder("h-40") });
export const LagChart = dynamic(() => import("./charts").then((m) => m.LagChart), { ssr: false, loading: placeholder("h-48") });
export const ObjectiveChart = dynamic(() => import("./charts").then((m) => m.ObjectiveChart), { ssr: false, loading: placeholder("h-48") });
