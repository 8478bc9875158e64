"use client";

import { useQuery } from "@tanstack/react-query";
import { memo } from "react";
import { Credentials } from "@/components/credentials";
import { SnippetTabs } from "@/components/snippets";
import { Card } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { ProductObservations } from "@/lib/api-types";
import { javaProducerSnippet, kcatProduceCommand, platformaticProducerSnippet, pythonProducerSnippet, type ProducerRegistrySettings } from "@/lib/connection-snippets";
import { queryKeys } from "@/lib/query-keys";

/*
 * The Access section's producer card: loaded (next/dynamic) only when the
 * section comes near the viewport, and only for the product's owners.
 */

/** The producer account's one-time password and producer snippets (owners only: the answer carries `producer` only for them). */
export function ProducerAccessPanel({ productId, domainName, registry }: { productId: string; domainName: string; registry?: ProducerRegistrySettings }) {
  // The Live section's query, not polled here: the credentials change only by the owner's own action (which refreshes the query).
  const observed = useQuery({
    queryKey: queryKeys.products.observations(productId),
    queryFn: ({ signal }) => api<ProductObservations>(`/api/v1/products/${productId}/observations`, { signal }),
  });
  if (observed.isPending || observed.isError || !observed.data.producer) return null;
  return <ProducerAccess producer={observed.data.producer} productId={productId} domainName={domainName} registry={registry} />;
}

const ProducerAccess = memo(function ProducerAccess({ producer, productId, domainName, registry }: { producer: NonNullable<ProductObservations["producer"]>; productId: string; domainName: string; registry?: ProducerRegistrySettings }) {
  return (
    <Card title="Producer access" actions={<span className="text-xs text-slate-500">owners only</span>}>
      <div className="space-y-4">
        <div>
          <Credentials account={producer.serviceAccount} domainName={domainName} credentials={producer.credentials} shownIn={queryKeys.products.observations(productId)} />
        </div>
        <div className="min-w-0">
          <SnippetTabs
            label="Producer snippet"
            tabs={[
              { id: "javascript", label: "JavaScript", code: platformaticProducerSnippet(producer.connection, registry) },
              { id: "java", label: "Java", code: javaProducerSnippet(producer.connection, registry) },
              { id: "python", label: "Python", code: pythonProducerSnippet(producer.connection, registry) },
              { id: "kcat", label: "kcat", code: kcatProduceCommand(producer.connection, registry) },
            ]}
          />
        </div>
      </div>
    </Card>
  );
});
