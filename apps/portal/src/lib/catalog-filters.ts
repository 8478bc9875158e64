import type { ProductFilters } from "./query-keys";

/** Products per catalog page (the server's first page and the client's later ones ask for the same). */
export const CATALOG_PAGE_SIZE = 12;

/** The catalog's filters from its URL (the URL is the state), on the server and in the browser alike. */
export function catalogFilters(params: URLSearchParams): ProductFilters {
  const get = (k: string) => params.get(k) ?? undefined;
  const page = Number(params.get("page") ?? "1");
  return {
    q: get("q"),
    domain: get("domain"),
    classification: get("classification"),
    tag: get("tag"),
    status: get("status"),
    sort: get("sort"),
    page: Number.isInteger(page) && page > 1 ? page : undefined,
  };
}

/** Same filters (the server's first page answers these, so the browser need not ask again). */
export function sameFilters(a: ProductFilters, b: ProductFilters): boolean {
  const keys: (keyof ProductFilters)[] = ["q", "domain", "classification", "tag", "status", "sort", "page"];
  return keys.every((k) => (a[k] ?? undefined) === (b[k] ?? undefined));
}
