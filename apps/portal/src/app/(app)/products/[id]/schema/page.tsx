import { getProduct, listSchemaVersions, NotFoundError, toJson } from "@kappa/catalog";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { SchemaVersionsView } from "./schema-versions-view";

export const metadata: Metadata = { title: "Schema versions" };

export default async function SchemaVersionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}/schema`);
  try {
    const [product, versions] = await Promise.all([getProduct(db(), actor, id), listSchemaVersions(db(), actor, id)]);
    return (
      <SchemaVersionsView
        product={{ id: product.id, name: product.name, topicName: product.topicName, status: product.status, domainId: product.domainId, domainName: product.domain.name }}
        initial={toJson(versions)}
      />
    );
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}
