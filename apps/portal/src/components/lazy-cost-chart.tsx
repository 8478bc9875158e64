"use client";

import dynamic from "next/dynamic";

/** The cost chart, with recharts loaded only when a chart is shown. */
export const LazyCostChart = dynamic(() => import("./cost-chart").then((m) => m.CostChart), {
  ssr: false,
  loading: () => <div className="h-56 w-full animate-pulse rounded bg-slate-100" aria-hidden="true" />,
});
