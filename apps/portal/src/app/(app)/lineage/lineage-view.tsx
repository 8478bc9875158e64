"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { usePathname, useRouter } from "next/navigation";
import { Link } from "@/components/link";
import { Age } from "@/components/relative-time";
import { Card, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { LineageGraphData } from "@/lib/api-types";

// The graph (React Flow + dagre) is heavy client code: loaded only here, after the page is interactive.
const LineageGraph = dynamic(() => import("@/components/lineage-graph").then((m) => m.LineageGraph), { ssr: false, loading: () => <Loading label="Drawing the graph…" /> });

const FLAG_TEXT: Record<string, string> = {
  "unused-grant": "granted, not used",
  "no-subscription": "used without a subscription",
  "input-not-granted": "declared input without a grant",
  "input-not-observed": "declared input, not seen read",
  "unknown-grant": "an ACL the catalog does not know",
};

export function LineageView({ focus }: { focus: string | null }) {
  const router = useRouter();
  const pathname = usePathname();
  const graph = useQuery({
    queryKey: ["lineage", focus],
    queryFn: ({ signal }) => api<LineageGraphData>(`/api/v1/lineage${toQueryString({ productId: focus })}`, { signal }),
    refetchInterval: 60_000,
  });
  if (graph.isPending) return <Loading />;
  if (graph.isError) return <ErrorAlert message={graph.error.message} />;
  const data = graph.data;
  const label = new Map(data.nodes.map((n) => [n.id, n.label]));
  const flagged = data.edges.filter((e) => e.flags.length > 0);
  const products = data.nodes.filter((n) => n.kind === "product").sort((a, b) => a.label.localeCompare(b.label));
  return (
    <div className="space-y-4">
      <Card>
        <div className="flex flex-wrap items-end gap-4">
          <div>
            <label htmlFor="focus" className="block text-sm font-medium">Focus on a product</label>
            <select id="focus" className={`${inputClass} mt-1 w-72`} value={focus ?? ""} onChange={(e) => router.replace(`${pathname}${toQueryString({ product: e.target.value || undefined })}`)}>
              <option value="">Whole mesh</option>
              {products.map((p) => <option key={p.id} value={p.productId}>{p.label}</option>)}
            </select>
          </div>
          <p className="text-xs text-slate-500">
            Observed = a consumer group of the account had members or advanced its commits in the last {data.unusedDays} days
            {data.observedAt ? <> · cluster last scanned <Age iso={data.observedAt} /> ago</> : <> · the worker has not scanned the cluster yet</>}.
          </p>
        </div>
        <ul className="mt-3 flex flex-wrap gap-4 text-xs text-slate-600" aria-label="Legend">
          <li><span className="mr-1 inline-block h-0.5 w-6 bg-emerald-600 align-middle" aria-hidden="true" />granted and used</li>
          <li><span className="mr-1 inline-block h-0.5 w-6 border-t-2 border-dashed border-amber-600 align-middle" aria-hidden="true" />granted, not used</li>
          <li><span className="mr-1 inline-block h-0.5 w-6 bg-rose-600 align-middle" aria-hidden="true" />used without a grant</li>
          <li><span className="mr-1 inline-block h-0.5 w-6 bg-indigo-600 align-middle" aria-hidden="true" />declared input</li>
          <li><span className="mr-1 inline-block h-0.5 w-6 border-t-2 border-dotted border-rose-700 align-middle" aria-hidden="true" />an ACL the catalog does not know</li>
        </ul>
      </Card>
      {data.nodes.length === 0 ? (
        <EmptyState title="Nothing to draw yet">Products appear here once they are approved.</EmptyState>
      ) : (
        <Card title="Graph">
          <div className="h-[32rem] w-full" data-testid="lineage-graph">
            <LineageGraph data={data} onFocus={(productId) => router.replace(`${pathname}${toQueryString({ product: productId })}`)} />
          </div>
        </Card>
      )}
      <Card title={`Needs attention (${flagged.length})`}>
        {flagged.length === 0 ? (
          <p className="text-sm text-slate-600">Every grant is used, every consumer seen has a subscription, and every ACL on a product topic is one the catalog made.</p>
        ) : (
          <table className="w-full text-left text-sm" data-testid="lineage-flags">
            <caption className="sr-only">Edges that need attention</caption>
            <thead className="text-xs uppercase text-slate-500"><tr><th scope="col" className="py-2 pr-4">From</th><th scope="col" className="py-2 pr-4">To</th><th scope="col" className="py-2 pr-4">Finding</th><th scope="col" className="py-2">Last seen</th></tr></thead>
            <tbody className="divide-y divide-slate-100">
              {flagged.map((e) => (
                <tr key={e.id} data-testid="lineage-flag">
                  <td className="py-2 pr-4">{label.get(e.source)}</td>
                  <td className="py-2 pr-4 font-mono text-xs">{label.get(e.target)}</td>
                  <td className="py-2 pr-4">{e.flags.map((f) => FLAG_TEXT[f] ?? f).join(", ")}{e.acl && <> ({e.acl.operations.join(", ")}): {e.acl.why}</>}{e.subscriptionId && <> · <Link className="text-indigo-700 hover:underline" href={`/subscriptions/${e.subscriptionId}`}>subscription</Link></>}</td>
                  <td className="py-2 text-slate-600">{e.lastActiveAt ? <><Age iso={e.lastActiveAt} /> ago</> : "never"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
