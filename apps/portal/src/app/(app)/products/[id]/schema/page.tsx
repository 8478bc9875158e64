import type { Metadata } from "next";
import { getProduct, listSchemaVersions, toJson } from "@kappa/catalog";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";
import { SchemaVersionsView } from "./schema-versions-view";

export const metadata: Metadata = { title: "Schema versions" };

export default async function SchemaVersionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}/schema`);
  const [product, versions] = await loadOrNotFound(Promise.all([getProduct(db(), actor, id), listSchemaVersions(db(), actor, id)]));
  return (
    <SchemaVersionsView
      product={{ id: product.id, name: product.name, topicName: product.topicName, status: product.status, domainId: product.domainId, domainName: product.domain.name }}
      initial={toJson(versions)}
    />
  );
}
