"use client";

import dynamic from "next/dynamic";
import { useEffect, useRef, useState, type ComponentProps, type ReactNode, type Ref } from "react";

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

/** Renders the placeholder until it is 200 px from the viewport, then the chart (and keeps it). */
function WhenNear({ height, children }: { height: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (near || !element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setNear(true);
          observer.disconnect();
        }
      },
      { rootMargin: "200px 0px" },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [near]);
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
