"use client";

import { useQuery } from "@tanstack/react-query";
import { ConsumerLagList, ThroughputPanel, TieredStoragePanel } from "@/components/observations";
import { ProductFreshness } from "@/components/slo";
import { Card, ErrorAlert } from "@/components/ui";
import { PanelPlaceholder } from "@/components/when-near";
import { api } from "@/lib/api-client";
import type { ProductObservations } from "@/lib/api-types";
import { queryKeys } from "@/lib/query-keys";

/*
 * The product page's Live section: loaded (next/dynamic) only when the
 * section comes near the viewport, so the page's first load carries none of
 * it. The Access section's producer card (producer-access.tsx) reads the same
 * query, unpolled.
 */

export const POLL_MS = 3000;
const CLUSTER_PLACEHOLDER = <PanelPlaceholder title="Tiered storage and replay" height="h-96" />;

function useObservations(productId: string, live: boolean) {
  return useQuery({
    queryKey: queryKeys.products.observations(productId),
    queryFn: ({ signal }) => api<ProductObservations>(`/api/v1/products/${productId}/observations`, { signal }),
    // Polled only while the Live section is on screen (and the tab in front: TanStack's default).
    refetchInterval: live ? POLL_MS : false,
  });
}

/** What the worker observes on the cluster for this product; `live` while the section is on screen. */
export function LivePanels({ productId, live }: { productId: string; live: boolean }) {
  const observed = useObservations(productId, live);
  if (observed.isPending) return CLUSTER_PLACEHOLDER;
  if (observed.isError) return <Card title="Tiered storage and replay"><ErrorAlert message={observed.error.message} /></Card>;
  const data = observed.data;
  const every = live ? `Live · every ${POLL_MS / 1000} s` : "Paused while off screen";
  // Each card gets only its slice of the answer (kept the same object by structural sharing while it does not change), so a poll redraws only what moved.
  return (
    <div className="space-y-6">
      <Card title="Tiered storage and replay" actions={<span className="text-xs text-slate-500">{every}</span>}>
        <TieredStoragePanel tieredStorage={data.tieredStorage} topic={data.topic} replay={data.replay} />
      </Card>
      <Card title="Throughput">
        <ThroughputPanel throughput={data.throughput} topic={data.topic} />
      </Card>
      <Card title="Freshness and alerts" actions={<span className="text-xs text-slate-500">{every}</span>}>
        <ProductFreshness productId={productId} live={live} />
      </Card>
      <Card title={data.seesAllLag ? "Subscribers' lag" : "Your lag"}>
        <ConsumerLagList consumers={data.consumers} samples={data.lagSamples} showSubscriber={data.seesAllLag} empty={data.seesAllLag ? SUBSCRIBERS_NO_LAG : OWN_NO_LAG} />
      </Card>
    </div>
  );
}

const SUBSCRIBERS_NO_LAG = "No subscriber's consumer group has committed offsets on this topic yet.";
const OWN_NO_LAG = "None of your domains' consumer groups has committed offsets on this topic yet.";
