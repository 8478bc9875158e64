import { formatNumber } from "./format";

/** What the catalog heading needs of a search result (see searchProducts in @kappa/catalog). */
export interface ResultCount {
  total: number;
  /** false: the catalog stopped counting at `total` (1,000) and more match. */
  totalIsExact: boolean;
  /** With totalIsExact false: the planner's estimate of all matches (null when it has none above the cap). */
  totalEstimate?: number | null;
  match: "all" | "text" | "fuzzy";
}

/**
 * "12 products", "1,000+ products" (the catalog stops counting at 1,000, so
 * the figure is a lower bound and says so), "about 27,000 products
 * (estimate)" when the planner's estimate is known past the cap, or, when nothing matched the
 * words, how many similar names are shown instead.
 */
export function resultsHeading(data: ResultCount): string {
  // Past the cap with an estimate: say it is one ("About 27,000 products (estimate)").
  if (!data.totalIsExact && data.totalEstimate && data.match !== "fuzzy") return `About ${formatNumber(data.totalEstimate)} products (estimate)`;
  const n = `${formatNumber(data.total)}${data.totalIsExact ? "" : "+"}`;
  const noun = `product${data.total === 1 && data.totalIsExact ? "" : "s"}`;
  return data.match === "fuzzy" && data.total > 0 ? `${n} ${noun} with a similar name` : `${n} ${noun}`;
}
