import { describe, expect, it } from "vitest";
import { CatalogView } from "./catalog-view.ts";

/** The catalog view with scopes set directly (the database part is covered by the integration tests). */
function viewWith(prefixes: string[]): CatalogView {
  const view = new CatalogView(60_000);
  view.scopes = new Map(prefixes.map((prefix, i) => [prefix, { prefix, accountId: `a${i}`, topics: new Map() }]));
  view["prefixLengths"] = [...new Set(prefixes.map((p) => p.length))].sort((a, b) => b - a);
  return view;
}

describe("CatalogView.scopeOf", () => {
  it("picks the longest matching account prefix", () => {
    const view = viewWith(["a.", "a.b.", "payments-app."]);
    expect(view.scopeOf("a.b.reader")?.prefix).toBe("a.b.");
    expect(view.scopeOf("a.reader")?.prefix).toBe("a.");
    expect(view.scopeOf("payments-app.recon")?.prefix).toBe("payments-app.");
  });

  it("finds nothing for groups outside every prefix", () => {
    const view = viewWith(["a."]);
    expect(view.scopeOf("ab.reader")).toBeUndefined();
    expect(view.scopeOf("a")).toBeUndefined();
    expect(view.scopeOf("other")).toBeUndefined();
  });
});
