import type { Metadata } from "next";
import { ForbiddenError, schemaVersionReview, toJson } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadPageData } from "@/server/page-data";
import { SchemaVersionReviewView } from "./schema-version-review";

export const metadata: Metadata = { title: "Review a schema version" };

export default async function SchemaVersionReviewPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/review/schema-versions/${id}`);
  const data = await loadPageData(schemaVersionReview(db(), actor, id));
  if (data instanceof ForbiddenError) {
    return (
      <>
        <PageHeader title="Schema version" />
        <EmptyState title="Not available">{data.message}</EmptyState>
      </>
    );
  }
  return <SchemaVersionReviewView initial={toJson(data)} />;
}
