import type { Metadata } from "next";
import { catalogFacets, searchProducts, toJson, withQualityScores } from "@kappa/catalog";
import { ButtonLink, PageHeader } from "@/components/ui";
import type { ProductSearchResult } from "@/lib/api-types";
import { CATALOG_PAGE_SIZE, catalogFilters } from "@/lib/catalog-filters";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";
import { CatalogView } from "./catalog-view";

export const metadata: Metadata = { title: "Catalog" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function CatalogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/");
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) if (typeof v === "string") params.set(k, v);
  const filters = catalogFilters(params);
  // Started, not awaited: the page's first bytes (header, search form, filter
  // menus) go out at once and the results stream in when the search answers.
  // A refusal (a bad filter in the URL) resolves to null and the browser asks
  // the API, which shows the error.
  const first: Promise<ProductSearchResult | null> = searchProducts(db(), actor, { ...filters, pageSize: CATALOG_PAGE_SIZE })
    .then((result) => withQualityScores(db(), result))
    .then(
    (result) => toJson(result),
    () => null,
  );
  const facets = await loadOrNotFound(catalogFacets(db(), actor));
  const owns = actor.memberships.some((m) => m.role === "OWNER");
  return (
    <>
      <PageHeader
        title="Data product catalog"
        description="Search the event streams every domain publishes, read their contracts and request access."
        actions={owns ? <ButtonLink href="/products/new">Register a product</ButtonLink> : undefined}
      />
      <CatalogView domains={facets.domains} tags={facets.tags} first={{ filters, result: first }} />
    </>
  );
}
