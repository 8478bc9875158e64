import dagre from "@dagrejs/dagre";

/*
 * Positions for the lineage graph, in the direction data flows, left to
 * right: a product's inputs, the product, the accounts that read it, then the
 * products derived from it. A declared input edge (input product → derived
 * product) spans two ranks, so the derived product lands after the accounts
 * that read its input, never beside them.
 *
 * Each connected part of the mesh is laid out on its own (dagre) and the
 * parts are then packed in rows, biggest first, to a width that gives the
 * whole a landscape shape: a mesh of 100 unrelated products becomes a block
 * of rows, not one column 100 nodes tall.
 */

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 54;
const GAP = 48;
/** The shape the packed parts aim for (width / height), about a wide screen's. */
const ASPECT = 1.8;

export interface LayoutNode {
  id: string;
}
export interface LayoutEdge {
  source: string;
  target: string;
  kind: string;
}
export interface Placed {
  /** Top-left corner. */
  x: number;
  y: number;
}

function components(nodes: LayoutNode[], edges: LayoutEdge[]): string[][] {
  const parent = new Map(nodes.map((n) => [n.id, n.id]));
  const find = (id: string): string => {
    let root = id;
    while (parent.get(root) !== root) root = parent.get(root) ?? root;
    parent.set(id, root);
    return root;
  };
  for (const e of edges) {
    if (!parent.has(e.source) || !parent.has(e.target)) continue;
    parent.set(find(e.source), find(e.target));
  }
  const groups = new Map<string, string[]>();
  for (const n of nodes) {
    const root = find(n.id);
    groups.set(root, [...(groups.get(root) ?? []), n.id]);
  }
  return [...groups.values()];
}

interface Part {
  positions: Map<string, Placed>;
  width: number;
  height: number;
}

function layoutPart(ids: string[], edges: LayoutEdge[]): Part {
  const members = new Set(ids);
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 90, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of ids) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) {
    if (!members.has(e.source) || !members.has(e.target) || e.source === e.target) continue;
    // Input → derived product skips a rank: the readers of the input stand between them.
    g.setEdge(e.source, e.target, { minlen: e.kind === "input" ? 2 : 1 });
  }
  dagre.layout(g);
  const positions = new Map<string, Placed>();
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const id of ids) {
    const p = g.node(id) as { x: number; y: number };
    const x = p.x - NODE_WIDTH / 2;
    const y = p.y - NODE_HEIGHT / 2;
    positions.set(id, { x, y });
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x + NODE_WIDTH);
    maxY = Math.max(maxY, y + NODE_HEIGHT);
  }
  for (const [id, p] of positions) positions.set(id, { x: p.x - minX, y: p.y - minY });
  return { positions, width: maxX - minX, height: maxY - minY };
}

/** Top-left positions of every node, and the size of the whole drawing. */
export function layoutLineage(nodes: LayoutNode[], edges: LayoutEdge[]): { positions: Map<string, Placed>; width: number; height: number } {
  const parts = components(nodes, edges)
    .map((ids) => layoutPart(ids, edges))
    // Biggest first; parts of the same size keep the catalog's order.
    .sort((a, b) => b.width * b.height - a.width * a.height);
  const area = parts.reduce((sum, p) => sum + (p.width + GAP) * (p.height + GAP), 0);
  const rowWidth = Math.max(...parts.map((p) => p.width), Math.sqrt(area * ASPECT), 0);
  const positions = new Map<string, Placed>();
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  let width = 0;
  for (const part of parts) {
    if (x > 0 && x + part.width > rowWidth) {
      x = 0;
      y += rowHeight + GAP;
      rowHeight = 0;
    }
    for (const [id, p] of part.positions) positions.set(id, { x: x + p.x, y: y + p.y });
    width = Math.max(width, x + part.width);
    rowHeight = Math.max(rowHeight, part.height);
    x += part.width + GAP;
  }
  return { positions, width, height: y + rowHeight };
}
