import { getProduct, NotFoundError, toJson } from "@kappa/catalog";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { ProductView } from "./product-view";

export const metadata: Metadata = { title: "Data product" };

export default async function ProductPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}`);
  try {
    const product = toJson(await getProduct(db(), actor, id));
    return <ProductView initial={product} />;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}
