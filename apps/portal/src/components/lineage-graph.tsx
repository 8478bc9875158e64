"use client";

import { Background, Controls, MiniMap, ReactFlow, type Edge, type Node, type ReactFlowInstance } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useMemo, useRef } from "react";
import type { LineageGraphData } from "@/lib/api-types";
import { layoutLineage, NODE_HEIGHT as HEIGHT, NODE_WIDTH as WIDTH } from "@/lib/lineage-layout";

/** The smallest zoom the graph opens at: its 12 px labels stay about 8 px or more. A bigger mesh opens at its top left, to pan (or zoom out) from. */
const READABLE_ZOOM = 0.7;
/** The minimap's colours per kind (the main graph's node rings). */
const MINIMAP_COLOR: Record<string, string> = { product: "#6366f1", account: "#94a3b8", group: "#fb7185", principal: "#e11d48" };

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
 * Laid out left to right in the direction data flows (lib/lineage-layout.ts:
 * inputs → product → its readers → derived products, unrelated parts packed
 * in rows); React Flow draws it with zoom, pan, a minimap and
 * keyboard-focusable nodes. A product node's button focuses the graph on it.
 */
export function LineageGraph({ data, onFocus }: { data: LineageGraphData; onFocus: (productId: string) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const { nodes, edges, size } = useMemo(() => {
    const layout = layoutLineage(data.nodes, data.edges);
    const nodes: Node[] = data.nodes.map((n) => {
      const p = layout.positions.get(n.id) ?? { x: 0, y: 0 };
      return {
        id: n.id,
        position: p,
        width: WIDTH,
        height: HEIGHT,
        data: {
          kind: n.kind,
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
    return { nodes, edges, size: { width: layout.width, height: layout.height } };
  }, [data, onFocus]);
  // Fit the whole graph when that keeps it readable; otherwise open at a readable zoom on its top left.
  const onInit = useCallback(
    (flow: ReactFlowInstance) => {
      const box = container.current?.getBoundingClientRect();
      const pad = 24;
      const fit = box ? Math.min((box.width - 2 * pad) / Math.max(size.width, 1), (box.height - 2 * pad) / Math.max(size.height, 1)) : 1;
      if (fit >= READABLE_ZOOM) void flow.fitView({ padding: 0.1, maxZoom: 1.25 });
      else void flow.setViewport({ x: pad, y: pad, zoom: READABLE_ZOOM });
    },
    [size],
  );
  return (
    <div ref={container} className="h-full w-full">
      <ReactFlow nodes={nodes} edges={edges} onInit={onInit} minZoom={0.1} nodesConnectable={false} proOptions={{ hideAttribution: true }} aria-label="Lineage graph">
        <Background />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable ariaLabel="Minimap of the lineage graph" nodeColor={(n) => MINIMAP_COLOR[String(n.data.kind)] ?? "#94a3b8"} nodeStrokeWidth={3} maskColor="rgba(100, 116, 139, 0.15)" />
      </ReactFlow>
    </div>
  );
}
