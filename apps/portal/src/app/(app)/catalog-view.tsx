"use client";

// The enum lists only: validation.ts would bring zod into this page's browser bundle.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, use, useEffect, useState } from "react";
import { CLASSIFICATIONS, PRODUCT_STATUSES } from "@kappa/catalog/enums";
import { Link } from "@/components/link";
import { Ago } from "@/components/relative-time";
import { Badge, Button, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { ProductSearchResult } from "@/lib/api-types";
import { CATALOG_PAGE_SIZE, catalogFilters, sameFilters } from "@/lib/catalog-filters";
import { resultsHeading } from "@/lib/catalog-results";
import { formatDurationMs, formatShare, humanize } from "@/lib/format";
import { queryKeys, type ProductFilters } from "@/lib/query-keys";

/** The server's first page, streamed: for the filters the page was rendered with (null: the browser asks the API). */
export interface FirstPage {
  filters: ProductFilters;
  result: Promise<ProductSearchResult | null>;
}

export function CatalogView({ domains, tags, first }: { domains: { slug: string; name: string }[]; tags: string[]; first: FirstPage }) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = catalogFilters(new URLSearchParams(searchParams.toString()));
  const [text, setText] = useState(filters.q ?? "");

  // The URL is the state: shareable, and back/forward work.
  function update(next: Partial<ProductFilters>, resetPage = true) {
    const merged: ProductFilters = { ...filters, ...next, ...(resetPage ? { page: undefined } : {}) };
    router.replace(`${pathname}${toQueryString({ ...merged })}`, { scroll: false });
  }

  useEffect(() => {
    if ((filters.q ?? "") === text.trim()) return;
    const timer = setTimeout(() => update({ q: text.trim() || undefined }), 300);
    return () => clearTimeout(timer);
    // Debounces typing only: the URL's q and update() are read when the timer fires, and
    // re-running on their change would restart the debounce on every navigation.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);

  // With search words the catalog ranks by relevance unless asked otherwise.
  const defaultSort = filters.q ? "relevance" : "updated";
  const active = Object.entries(filters).some(([k, v]) => k !== "sort" && k !== "page" && v !== undefined);

  return (
    <div className="grid gap-6 lg:grid-cols-[16rem_1fr]">
      <form role="search" aria-label="Filter the catalog" className="space-y-4" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="q" className="block text-sm font-medium text-slate-800">Search</label>
          <input id="q" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Name, description or tag" className={`${inputClass} mt-1`} />
        </div>
        <Select id="domain" label="Domain" value={filters.domain} onChange={(v) => update({ domain: v })} options={domains.map((d) => [d.slug, d.name])} />
        <Select id="classification" label="Classification" value={filters.classification} onChange={(v) => update({ classification: v })} options={CLASSIFICATIONS.map((c) => [c, humanize(c)])} />
        <Select id="tag" label="Tag" value={filters.tag} onChange={(v) => update({ tag: v })} options={tags.map((t) => [t, t])} />
        <Select id="status" label="Status" value={filters.status} onChange={(v) => update({ status: v })} options={PRODUCT_STATUSES.map((s) => [s, humanize(s)])} allLabel="Any but retired" />
        {active && (
          <Button variant="ghost" className="w-full" onClick={() => { setText(""); router.replace(pathname); }}>
            Clear filters
          </Button>
        )}
      </form>

      <Suspense fallback={<ResultsPending />}>
        <Results filters={filters} first={first} active={active} defaultSort={defaultSort} update={update} setText={setText} />
      </Suspense>
    </div>
  );
}

function ResultsPending() {
  return (
    <section aria-labelledby="results-heading" className="min-w-0">
      <h2 id="results-heading" className="mb-3 text-sm text-slate-600" aria-live="polite">Searching…</h2>
      <Loading label="Loading products…" />
    </section>
  );
}

/**
 * The results. The first page comes from the server in the same response
 * (streamed, so the form paints before the search answers); later pages and
 * other filters are asked of the API, unless the server already answered them.
 */
function Results({ filters, first, active, defaultSort, update, setText }: {
  filters: ProductFilters;
  first: FirstPage;
  active: boolean;
  defaultSort: string;
  update: (next: Partial<ProductFilters>, resetPage?: boolean) => void;
  setText: (text: string) => void;
}) {
  const streamed = use(first.result);
  const query = useQuery({
    queryKey: queryKeys.products.list(filters),
    queryFn: ({ signal }) => api<ProductSearchResult>(`/api/v1/products${toQueryString({ ...filters, pageSize: CATALOG_PAGE_SIZE })}`, { signal }),
    initialData: streamed && sameFilters(filters, first.filters) ? streamed : undefined,
    placeholderData: keepPreviousData,
  });
  const data = query.data;
  return (
    <section aria-labelledby="results-heading" className="min-w-0">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <h2 id="results-heading" className="text-sm text-slate-600" aria-live="polite">
          {data ? resultsHeading(data) : "Searching…"}
        </h2>
        <div className="flex items-center gap-2">
          <label htmlFor="sort" className="whitespace-nowrap text-sm text-slate-600">Sort by</label>
          <select id="sort" value={filters.sort ?? defaultSort} onChange={(e) => update({ sort: e.target.value === defaultSort ? undefined : e.target.value })} className={`${inputClass} w-auto`}>
            {filters.q && <option value="relevance">Relevance</option>}
            <option value="updated">Recently updated</option>
            <option value="created">Newest</option>
            <option value="name">Name</option>
          </select>
        </div>
      </div>

      {data && data.match === "fuzzy" && data.suggestions.length > 0 && (
        <p className="mb-3 text-sm text-slate-700" data-testid="did-you-mean">
          No product matches “{filters.q}”. Did you mean{" "}
          {data.suggestions.map((name, i) => (
            <span key={name}>
              {i > 0 && ", "}
              <button type="button" className="font-medium text-indigo-700 underline hover:text-indigo-900" onClick={() => { setText(name); update({ q: name }); }}>
                {name}
              </button>
            </span>
          ))}
          ?
        </p>
      )}
      {query.isError && <ErrorAlert message={query.error.message} />}
      {query.isPending && <Loading label="Loading products…" />}
      {data && data.items.length === 0 && (
        <EmptyState title="No data products match">{active ? "Try fewer filters or another search term." : "Nothing has been registered yet."}</EmptyState>
      )}
      {data && data.items.length > 0 && (
        <ul className={`grid gap-3 sm:grid-cols-2 ${query.isFetching ? "opacity-70" : ""}`} aria-busy={query.isFetching}>
          {data.items.map((p) => (
            <li key={p.id} className="flex flex-col rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200 hover:ring-indigo-300">
              <div className="flex items-start justify-between gap-2">
                <Link href={`/products/${p.id}`} className="font-semibold text-slate-900 hover:text-indigo-700 hover:underline">
                  {p.name}
                </Link>
                <Badge value={p.status} />
              </div>
              <p className="mt-0.5 font-mono text-xs text-slate-500">{p.topicName}</p>
              <p className="mt-2 line-clamp-2 text-sm text-slate-700">{p.description}</p>
              <div className="mt-3 flex flex-wrap items-center gap-1.5">
                <Badge value={p.classification} label={humanize(p.classification)} />
                {p.tags.map((t) => (
                  <button key={t} type="button" onClick={() => update({ tag: t })} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700 hover:bg-indigo-50" aria-label={`Filter by tag ${t}`}>
                    #{t}
                  </button>
                ))}
              </div>
              {/* Observed quality (issue 29): only where the platform measured it; never a made-up figure. */}
              <p className="mt-2 text-xs text-slate-600" data-testid="catalog-quality">
                {p.quality ? (
                  <>
                    Quality <span className="font-semibold text-slate-900">{formatShare(p.quality.share)}</span> of {p.quality.records.toLocaleString("en")} sampled records pass its rules (24 h)
                  </>
                ) : (
                  "Quality not measured"
                )}
              </p>
              <p className="mt-auto pt-3 text-xs text-slate-500">
                {p.domain.name} · retention {formatDurationMs(p.retentionMs)} · {p._count.subscriptions} active subscriber{p._count.subscriptions === 1 ? "" : "s"} · updated <Ago iso={p.updatedAt} />
              </p>
            </li>
          ))}
        </ul>
      )}
      {data && data.pageCount > 1 && (
        <nav aria-label="Pagination" className="mt-4 flex items-center justify-between">
          <Button variant="secondary" disabled={data.page <= 1} onClick={() => update({ page: data.page - 1 > 1 ? data.page - 1 : undefined }, false)}>
            Previous
          </Button>
          <span className="text-sm text-slate-600">Page {data.page} of {data.pageCount}</span>
          <Button variant="secondary" disabled={data.page >= data.pageCount} onClick={() => update({ page: data.page + 1 }, false)}>
            Next
          </Button>
        </nav>
      )}
    </section>
  );
}

function Select({ id, label, value, onChange, options, allLabel = "All" }: { id: string; label: string; value: string | undefined; onChange: (v: string | undefined) => void; options: [string, string][]; allLabel?: string }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">{label}</label>
      <select id={id} value={value ?? ""} onChange={(e) => onChange(e.target.value || undefined)} className={`${inputClass} mt-1`}>
        <option value="">{allLabel}</option>
        {options.map(([v, l]) => (
          <option key={v} value={v}>{l}</option>
        ))}
      </select>
    </div>
  );
}
