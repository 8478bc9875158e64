import type { Metadata } from "next";
import { activePolicy, canInDomain, getProduct, hasGlobal, toJson } from "@kappa/catalog";
import { ProductForm } from "@/components/product-form";
import { EmptyState, PageHeader } from "@/components/ui";
import { CLAIM_SAMPLING_PENDING } from "@/lib/claim-form";
import { valuesFromProduct } from "@/lib/product-form";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";

export const metadata: Metadata = { title: "Edit data product" };

export default async function EditProductPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}/edit`);
  const product = toJson(await loadOrNotFound(getProduct(db(), actor, id)));
  if (!canInDomain(actor, "product:update", product.domainId)) {
    return (
      <>
        <PageHeader title={`Edit ${product.name}`} />
        <EmptyState title="You cannot edit this product">Only owners of the {product.domain.name} domain can change it.</EmptyState>
      </>
    );
  }
  const values = valuesFromProduct(product);
  const policy = await activePolicy(db());
  return (
    <>
      <PageHeader
        title={`Edit ${product.name}`}
        description={
          product.status === "DRAFT" || product.status === "REJECTED"
            ? "Every field can change until the product is approved."
            : `The product is ${product.status.toLowerCase().replace("_", " ")}: only its description, tags, SLA and contact can change.`
        }
      />
      <ProductForm
        mode={{ kind: "edit", productId: product.id, status: product.status, initial: values }}
        defaults={values}
        policy={policy}
        // A claim's draft: its schema may be inferred from the topic's records by admins, or by its owners once an admin approved sampling.
        inference={product.claim ? (hasGlobal(actor, "platform:admin") || product.claim.samplingApprovedById ? { topic: product.claim.topic } : { refused: CLAIM_SAMPLING_PENDING }) : undefined}
      />
    </>
  );
}
