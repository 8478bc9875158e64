"use client";

import dagre from "@dagrejs/dagre";
import { Background, Controls, MiniMap, ReactFlow, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "react";
import type { LineageGraphData } from "@/lib/api-types";

const WIDTH = 200;
const HEIGHT = 54;

function edgeStyle(e: LineageGraphData["edges"][number]) {
  if (e.kind === "input") return { stroke: "#4f46e5", strokeWidth: 2 };
  if (e.kind === "acl") return { stroke: "#be123c", strokeWidth: 2, strokeDasharray: "2 3" };
  if (!e.granted) return { stroke: "#e11d48", strokeWidth: 2 };
  if (!e.observed) return { stroke: "#d97706", strokeWidth: 2, strokeDasharray: "6 4" };
  return { stroke: "#059669", strokeWidth: 2 };
}

const NODE_CLASS: Record<string, string> = {
  product: "bg-white ring-indigo-300",
  account: "bg-slate-50 ring-slate-300",
  group: "bg-rose-50 ring-rose-300",
  principal: "bg-rose-100 ring-rose-500",
};

/**
 * Dagre lays the graph out left to right (products → readers, inputs →
 * derived products); React Flow draws it with zoom, pan, a minimap and
 * keyboard-focusable nodes. A product node's button focuses the graph on it.
 */
export function LineageGraph({ data, onFocus }: { data: LineageGraphData; onFocus: (productId: string) => void }) {
  const { nodes, edges } = useMemo(() => {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 90 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const n of data.nodes) g.setNode(n.id, { width: WIDTH, height: HEIGHT });
    for (const e of data.edges) g.setEdge(e.source, e.target);
    dagre.layout(g);
    const nodes: Node[] = data.nodes.map((n) => {
      const p = g.node(n.id) as { x: number; y: number } | undefined;
      return {
        id: n.id,
        position: { x: (p?.x ?? 0) - WIDTH / 2, y: (p?.y ?? 0) - HEIGHT / 2 },
        data: {
          label: (
            <div className={`rounded-md px-2 py-1 text-left text-xs ring-1 ${NODE_CLASS[n.kind] ?? ""}`} style={{ width: WIDTH - 16 }}>
              {n.kind === "product" && n.productId ? (
                <button type="button" className="block w-full truncate text-left font-medium text-indigo-800 hover:underline" onClick={() => onFocus(n.productId ?? "")} title={`Focus on ${n.label}`}>
                  {n.label}
                </button>
              ) : (
                <span className="block truncate font-mono">{n.label}</span>
              )}
              <span className="block truncate text-[11px] text-slate-600">{n.kind === "group" ? "group, no catalog account" : n.kind === "principal" ? "ACL outside the catalog" : n.domain ? `${n.kind === "product" ? "product" : "account"} · ${n.domain.slug}` : n.kind}</span>
            </div>
          ),
        },
        style: { width: WIDTH, padding: 0, border: "none", background: "transparent" },
        draggable: false,
      };
    });
    const edges: Edge[] = data.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, style: edgeStyle(e), animated: e.observed && e.kind !== "input" }));
    return { nodes, edges };
  }, [data, onFocus]);
  return (
    <ReactFlow nodes={nodes} edges={edges} fitView minZoom={0.1} nodesConnectable={false} proOptions={{ hideAttribution: true }} aria-label="Lineage graph">
      <Background />
      <Controls showInteractive={false} />
      <MiniMap pannable zoomable />
    </ReactFlow>
  );
}
