/*
 * Which API-token scopes let an agent call which MCP tool. The scopes are the
 * API tokens' own (packages/catalog/src/tokens/scopes.ts); this only says
 * which kind of tool each is:
 *   read    — finding and reading: needs `read`
 *   write   — acting for a domain (requesting access): needs a `write:<domain>`;
 *             the catalog then lets the token act only in the domains it names
 *   decide  — the review queue and decisions: `review` (governance) or a
 *             `write:<domain>` (owners decide on their products' subscriptions)
 * A tool the token may not call is not listed to it, and calling it anyway is
 * refused before any catalog code runs. Passing this gate grants nothing by
 * itself: every call then runs through the catalog's own permission checks
 * as the token's user, narrowed by the token's scopes.
 */

export type ToolAccess = "read" | "write" | "decide";

const hasWrite = (scopes: readonly string[]) => scopes.some((s) => s.startsWith("write:"));

export function scopeAllows(access: ToolAccess, scopes: readonly string[]): boolean {
  if (access === "read") return scopes.includes("read");
  if (access === "write") return hasWrite(scopes);
  return scopes.includes("review") || hasWrite(scopes);
}

/** What the refusal tells the agent (and its user) to put on a token. */
export function requiredScopeText(access: ToolAccess): string {
  if (access === "read") return "the `read` scope";
  if (access === "write") return "a `write:<domain>` scope for the domain it acts for";
  return "the `review` scope (governance) or a `write:<domain>` scope (the product's owners)";
}
