import { toJson } from "@kappa/catalog";

/*
 * Size limits on what an agent gets back. Every list is a page (pageSize
 * bounded by each tool's schema), and every answer as a whole is held under
 * MAX_ANSWER_CHARS of JSON: an agent's context is small and a product's
 * contract or schema can be large. Long strings are shortened (marked) until
 * the answer fits; if it still does not, long lists are cut, and the answer
 * says so (`truncated`), so nothing is silently missing.
 */

/** ~64 KB of JSON: far more than an agent should read in one answer, far less than a topic. */
export const MAX_ANSWER_CHARS = 64_000;
/** The most records sample_records returns (the message browser's page goes to 500). */
export const MAX_SAMPLE_RECORDS = 20;
/** Items per page of the lists that are not the catalog search. */
export const MAX_PAGE_SIZE = 50;

const MARK = "…[truncated]";

function shortenStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") return value.length > max ? value.slice(0, max) + MARK : value;
  if (Array.isArray(value)) return value.map((v) => shortenStrings(v, max));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenStrings(v, max)]));
  return value;
}

function cutLists(value: unknown, max: number): unknown {
  if (Array.isArray(value)) return value.slice(0, max).map((v) => cutLists(v, max));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutLists(v, max)]));
  return value;
}

const size = (value: unknown) => JSON.stringify(value).length;

/**
 * The answer as plain JSON (dates as ISO strings, bigints as numbers: the
 * catalog's toJson), at most `limit` characters. `truncated` is added (to an
 * object answer) when anything had to be shortened.
 */
export function fitAnswer(value: unknown, limit = MAX_ANSWER_CHARS): unknown {
  const plain: unknown = JSON.parse(JSON.stringify(toJson(value)) ?? "null");
  if (size(plain) <= limit) return plain;
  let fitted = plain;
  for (let max = 4096; max >= 64 && size(fitted) > limit; max = Math.floor(max / 2)) fitted = shortenStrings(plain, max);
  for (let max = 64; max >= 1 && size(fitted) > limit; max = Math.floor(max / 2)) fitted = cutLists(shortenStrings(plain, 64), max);
  const note = `This answer was shortened to fit ${limit} characters: long texts end in "${MARK}" and long lists were cut; ask for a smaller page or one item.`;
  if (size(fitted) > limit) return { truncated: note };
  return fitted && typeof fitted === "object" && !Array.isArray(fitted) ? { ...fitted, truncated: note } : { items: fitted, truncated: note };
}

/** One page of an in-memory list, with what an agent needs to ask for the next. */
export function pageOf<T>(items: readonly T[], page: number, pageSize: number) {
  const start = (page - 1) * pageSize;
  return {
    items: items.slice(start, start + pageSize),
    page,
    pageSize,
    total: items.length,
    pageCount: Math.max(1, Math.ceil(items.length / pageSize)),
    nextPage: start + pageSize < items.length ? page + 1 : null,
  };
}
