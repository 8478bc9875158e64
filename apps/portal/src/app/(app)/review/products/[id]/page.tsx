import type { Metadata } from "next";
import { ForbiddenError, productReview, toJson } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadPageData } from "@/server/page-data";
import { ProductReviewView } from "./product-review";

export const metadata: Metadata = { title: "Review a data product" };

export default async function ProductReviewPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/review/products/${id}`);
  const data = await loadPageData(productReview(db(), actor, id));
  if (data instanceof ForbiddenError) {
    return (
      <>
        <PageHeader title="Data product" />
        <EmptyState title="Not available">{data.message}</EmptyState>
      </>
    );
  }
  return <ProductReviewView initial={toJson(data)} />;
}
