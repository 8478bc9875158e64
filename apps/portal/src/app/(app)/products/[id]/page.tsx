import { getProduct, NotFoundError, toJson } from "@kappa/catalog";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { env } from "@/env";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { ProductView } from "./product-view";

export const metadata: Metadata = { title: "Data product" };

export default async function ProductPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}`);
  const product = await getProduct(db(), actor, id).catch((error: unknown) => {
    if (error instanceof NotFoundError) notFound();
    throw error;
  });
  return <ProductView initial={toJson(product)} registryUrl={`${env().NEXTAUTH_URL.replace(/\/$/, "")}/api/schema-registry`} />;
}
