import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { LineageView } from "./lineage-view";

export const metadata: Metadata = { title: "Lineage" };

export default async function LineagePage({ searchParams }: { searchParams: Promise<{ product?: string }> }) {
  await requireActor("/lineage");
  const { product } = await searchParams;
  return (
    <>
      <PageHeader
        title="Lineage"
        description="Who reads which product, and what derived products are made of. Each edge says whether access was granted and whether the worker has seen it used."
      />
      <LineageView focus={product ?? null} />
    </>
  );
}
