import { ForbiddenError, NotFoundError, schemaVersionReview, toJson } from "@kappa/catalog";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { SchemaVersionReviewView } from "./schema-version-review";

export const metadata: Metadata = { title: "Review a schema version" };

export default async function SchemaVersionReviewPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/review/schema-versions/${id}`);
  try {
    return <SchemaVersionReviewView initial={toJson(await schemaVersionReview(db(), actor, id))} />;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    if (error instanceof ForbiddenError) {
      return (
        <>
          <PageHeader title="Schema version" />
          <EmptyState title="Not available">{error.message}</EmptyState>
        </>
      );
    }
    throw error;
  }
}
