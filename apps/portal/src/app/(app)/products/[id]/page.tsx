import type { Metadata } from "next";
import { getProduct, toJson } from "@kappa/catalog";
import { env } from "@/env";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";
import { ProductView } from "./product-view";

export const metadata: Metadata = { title: "Data product" };

export default async function ProductPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}`);
  const product = await loadOrNotFound(getProduct(db(), actor, id));
  return <ProductView initial={toJson(product)} registryUrl={`${env().NEXTAUTH_URL.replace(/\/$/, "")}/api/schema-registry`} />;
}
