import { describe, expect, it } from "vitest";
import { layoutLineage, NODE_HEIGHT, NODE_WIDTH } from "./lineage-layout";

describe("layoutLineage", () => {
  it("lays a chain out left to right by flow: input → product → its reader → the product derived from it", () => {
    const nodes = [{ id: "derived" }, { id: "reader" }, { id: "product" }, { id: "input" }, { id: "input-reader" }];
    const edges = [
      { source: "input", target: "input-reader", kind: "subscription" },
      { source: "input", target: "product", kind: "input" },
      { source: "product", target: "reader", kind: "subscription" },
      { source: "product", target: "derived", kind: "input" },
    ];
    const { positions } = layoutLineage(nodes, edges);
    const x = (id: string) => positions.get(id)?.x ?? Number.NaN;
    expect(x("input")).toBeLessThan(x("input-reader"));
    expect(x("input-reader")).toBeLessThan(x("product"));
    expect(x("product")).toBeLessThan(x("reader"));
    expect(x("reader")).toBeLessThan(x("derived"));
  });

  it("packs 100 products into a landscape block that fits a wide graph at a readable zoom, nodes never overlapping", () => {
    const nodes = Array.from({ length: 100 }, (_, i) => ({ id: `p${i}` }));
    // A third of them read by an account each, a few chains of derived products.
    const edges = [
      ...Array.from({ length: 33 }, (_, i) => ({ source: `p${i}`, target: `a${i}`, kind: "subscription" })),
      ...Array.from({ length: 10 }, (_, i) => ({ source: `p${i}`, target: `p${50 + i}`, kind: "input" })),
    ];
    const all = [...nodes, ...Array.from({ length: 33 }, (_, i) => ({ id: `a${i}` }))];
    const { positions, width, height } = layoutLineage(all, edges);
    expect(positions.size).toBe(all.length);
    // One column of 100 would be ~7,800 px tall and 200 wide; packed, the drawing is wider than tall.
    expect(width / height).toBeGreaterThan(1);
    expect(width / height).toBeLessThan(4);
    // Fitted into a 1,100 × 640 px graph the zoom stays above 0.3 (the view starts at a readable 0.7 and pans from there).
    expect(Math.min(1100 / width, 640 / height)).toBeGreaterThan(0.3);
    const boxes = [...positions.values()];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        const overlap = a.x < b.x + NODE_WIDTH && b.x < a.x + NODE_WIDTH && a.y < b.y + NODE_HEIGHT && b.y < a.y + NODE_HEIGHT;
        expect(overlap).toBe(false);
      }
  });
});
