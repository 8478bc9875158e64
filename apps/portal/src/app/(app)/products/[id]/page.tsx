import type { Metadata } from "next";
import { getProduct, toJson } from "@kappa/catalog";
import { exampleValueSource } from "@kappa/catalog/schema-example";
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
  // The producer snippets' Schema Registry settings, with an example value made here on the server (the browser need not load the schema code).
  const schema = product.schemaVersions.find((v) => v.status === "APPROVED") ?? product.schemaVersions[0];
  const registry = schema
    ? { url: `${env().NEXTAUTH_URL.replace(/\/$/, "")}/api/schema-registry`, subject: `${product.topicName}-value`, format: schema.format, example: exampleValueSource(schema.format, schema.definition) }
    : undefined;
  return <ProductView initial={toJson(product)} registry={registry} />;
}
