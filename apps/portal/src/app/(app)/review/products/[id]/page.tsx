import { ForbiddenError, NotFoundError, productReview, toJson } from "@kappa/catalog";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { ProductReviewView } from "./product-review";

export const metadata: Metadata = { title: "Review a data product" };

export default async function ProductReviewPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/review/products/${id}`);
  try {
    return <ProductReviewView initial={toJson(await productReview(db(), actor, id))} />;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    if (error instanceof ForbiddenError) {
      return (
        <>
          <PageHeader title="Data product" />
          <EmptyState title="Not available">{error.message}</EmptyState>
        </>
      );
    }
    throw error;
  }
}
