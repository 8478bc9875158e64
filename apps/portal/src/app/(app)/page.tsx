import { catalogFacets } from "@kappa/catalog";
import type { Metadata } from "next";
import { ButtonLink, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { CatalogView } from "./catalog-view";

export const metadata: Metadata = { title: "Catalog" };

export default async function CatalogPage() {
  const actor = await requireActor("/");
  const facets = await catalogFacets(db(), actor);
  const owns = actor.memberships.some((m) => m.role === "OWNER");
  return (
    <>
      <PageHeader
        title="Data product catalog"
        description="Search the event streams every domain publishes, read their contracts and request access."
        actions={owns ? <ButtonLink href="/products/new">Register a product</ButtonLink> : undefined}
      />
      <CatalogView domains={facets.domains} tags={facets.tags} />
    </>
  );
}
