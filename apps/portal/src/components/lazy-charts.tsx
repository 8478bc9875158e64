"use client";

import dynamic from "next/dynamic";
import type { ComponentProps, ReactNode, Ref } from "react";
import { useNear } from "./when-near";

/*
 * The charts, loaded when they come near the viewport: recharts is the
 * largest library on the product and subscription pages, and drawing a chart
 * (and redrawing it on every 3 s poll) is most of their main-thread work, yet
 * the charts sit below the fold. A placeholder of the chart's own height
 * keeps the layout from shifting when it arrives.
 */
function Placeholder({ height, ref }: { height: string; ref?: Ref<HTMLDivElement> }) {
  return <div ref={ref} className={`${height} w-full animate-pulse rounded bg-slate-100`} aria-hidden="true" />;
}

function placeholder(height: string) {
  function ChartPlaceholder() {
    return <Placeholder height={height} />;
  }
  return ChartPlaceholder;
}

const Throughput = dynamic(() => import("./charts").then((m) => m.ThroughputChart), { ssr: false, loading: placeholder("h-40") });
const Lag = dynamic(() => import("./charts").then((m) => m.LagChart), { ssr: false, loading: placeholder("h-48") });
const Objective = dynamic(() => import("./charts").then((m) => m.ObjectiveChart), { ssr: false, loading: placeholder("h-48") });
const QuotaUsage = dynamic(() => import("./charts").then((m) => m.QuotaUsageChart), { ssr: false, loading: placeholder("h-40") });

/** Renders the placeholder until it is 200 px from the viewport, then the chart (and keeps it). */
function WhenNear({ height, children }: { height: string; children: ReactNode }) {
  // No idle fallback: a chart is a picture of figures the card also states in text.
  const { ref, near } = useNear<HTMLDivElement>({ margin: "200px 0px", fallback: false });
  return near ? children : <Placeholder height={height} ref={ref} />;
}

export function ThroughputChart(props: ComponentProps<typeof Throughput>) {
  return (
    <WhenNear height="h-40">
      <Throughput {...props} />
    </WhenNear>
  );
}

export function LagChart(props: ComponentProps<typeof Lag>) {
  return (
    <WhenNear height="h-48">
      <Lag {...props} />
    </WhenNear>
  );
}

export function ObjectiveChart(props: ComponentProps<typeof Objective>) {
  return (
    <WhenNear height="h-48">
      <Objective {...props} />
    </WhenNear>
  );
}

export function QuotaUsageChart(props: ComponentProps<typeof QuotaUsage>) {
  return (
    <WhenNear height="h-40">
      <QuotaUsage {...props} />
    </WhenNear>
  );
}
