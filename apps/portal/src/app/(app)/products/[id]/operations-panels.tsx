"use client";

import { EnvironmentsPanel } from "@/components/environments-panel";
import { KeyErasureCard } from "@/components/key-erasure-card";
import { PartitionsPanel } from "@/components/partitions-panel";
import { DriftPanel, InputsPanel } from "@/components/product-operations";
import { ReasonAction } from "@/components/reason-form";
import { RetirementCard } from "@/components/retirement-card";
import { Card, Field, inputClass } from "@/components/ui";
import { PanelPlaceholder } from "@/components/when-near";
import type { ProductDetail } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { useProductAction } from "@/lib/mutations";
import { deprecateHint } from "@/lib/reason-audience";

/*
 * The product page's Operations section (environments, partitions, inputs,
 * drift, deprecation and retirement), loaded (next/dynamic) only when the
 * section comes near the viewport. Provisioning stays on the page itself: it
 * is what an owner watches right after approval.
 */

const ON_CLUSTER = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"];
const DRIFT_PLACEHOLDER = <PanelPlaceholder title="Drift" height="h-16" />;

export function OperationsPanels({ product, isOwner, seesDrift }: { product: ProductDetail; isOwner: boolean; seesDrift: boolean }) {
  return (
    <div className="space-y-6">
      {(product.status === "DEPRECATED" || product.status === "RETIRED") && <RetirementCard productId={product.id} status={product.status} />}
      {/* Nothing until it knows there is a second environment: a single-cluster platform shows no card at all. */}
      <EnvironmentsPanel productId={product.id} />
      <PartitionsPanel product={product} isOwner={isOwner} />
      <InputsPanel product={product} isOwner={isOwner} />
      <KeyErasureCard product={product} isOwner={isOwner} />
      {seesDrift && ON_CLUSTER.includes(product.status) && <DriftPanel productId={product.id} placeholder={DRIFT_PLACEHOLDER} />}
      {isOwner && product.status === "ACTIVE" && <DeprecateCard productId={product.id} domainName={product.domain.name} />}
    </div>
  );
}

function DeprecateCard({ productId, domainName }: { productId: string; domainName: string }) {
  const action = useProductAction(productId);
  return (
    <Card title="Deprecate">
      <p className="mb-3 text-sm text-slate-600">Subscribers see the sunset date; the topic is retired after it.</p>
      <ReasonAction
        label="Deprecate…"
        confirmLabel="Deprecate product"
        hint={deprecateHint(domainName)}
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason, form) => {
          const date = formText(form, "sunsetAt");
          action.mutate({ kind: "deprecate", reason, sunsetAt: date ? new Date(`${date}T00:00:00Z`).toISOString() : "" });
        }}
        extra={({ prefix, errors }) => (
          <Field id={`${prefix}-sunset`} label="Sunset date" errors={errors.sunsetAt}>
            {(a) => <input {...a} name="sunsetAt" type="date" required className={inputClass} />}
          </Field>
        )}
      />
    </Card>
  );
}
