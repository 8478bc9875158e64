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
  try {
    const product = toJson(await getProduct(db(), actor, id));
    return <ProductView initial={product} registryUrl={`${env().NEXTAUTH_URL.replace(/\/$/, "")}/api/schema-registry`} />;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}
