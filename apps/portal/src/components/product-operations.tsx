"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { Badge, Button, Card, ErrorAlert, inputClass, Notice } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { ProductDetail, ProductDrift, ProductSearchResult } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { Link } from "./link";
import { Age } from "./relative-time";

/*
 * The operating panels of a product page: declared inputs (lineage), the
 * claimed topic's existing ACLs for the reviewer, and the drift the worker
 * found and repaired.
 */

export function InputsPanel({ product, isOwner }: { product: ProductDetail; isOwner: boolean }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [chosen, setChosen] = useState<string[]>(product.inputProducts.map((p) => p.id));
  const candidates = useQuery({
    queryKey: queryKeys.products.list({ status: "ACTIVE", sort: "name" }),
    queryFn: ({ signal }) => api<ProductSearchResult>("/api/v1/products?status=ACTIVE&sort=name&pageSize=100", { signal }),
    enabled: editing,
  });
  const save = useMutation<unknown, ApiError, string[]>({
    mutationFn: (ids) => api(`/api/v1/products/${product.id}/inputs`, { method: "PUT", body: { inputProductIds: ids } }),
    onSuccess: async () => {
      setEditing(false);
      await client.invalidateQueries({ queryKey: queryKeys.products.detail(product.id) });
    },
  });
  if (!isOwner && product.inputProducts.length === 0 && product.derivedProducts.length === 0) return null;
  return (
    <Card title="Lineage" actions={<Link href={`/lineage?product=${product.id}`} className="text-sm font-medium text-indigo-700 hover:underline">Open lineage graph</Link>}>
      <div className="grid gap-4 sm:grid-cols-2 text-sm">
        <div>
          <h3 className="text-xs font-semibold uppercase text-slate-500">Made from (declared inputs)</h3>
          {product.inputProducts.length === 0 ? <p className="text-slate-600">No inputs declared.</p> : (
            <ul data-testid="product-inputs">{product.inputProducts.map((p) => <li key={p.id}><Link className="text-indigo-700 hover:underline" href={`/products/${p.id}`}>{p.name}</Link> <span className="font-mono text-xs text-slate-500">{p.topicName}</span></li>)}</ul>
          )}
        </div>
        <div>
          <h3 className="text-xs font-semibold uppercase text-slate-500">Derived products</h3>
          {product.derivedProducts.length === 0 ? <p className="text-slate-600">None declares this product as an input.</p> : (
            <ul>{product.derivedProducts.map((p) => <li key={p.id}><Link className="text-indigo-700 hover:underline" href={`/products/${p.id}`}>{p.name}</Link></li>)}</ul>
          )}
        </div>
      </div>
      {isOwner && !editing && <Button variant="secondary" className="mt-3" onClick={() => setEditing(true)}>Declare inputs</Button>}
      {editing && (
        <fieldset className="mt-3">
          <legend className="text-sm font-medium">Input products (ACTIVE products)</legend>
          {candidates.isPending && <p className="text-sm text-slate-500">Loading products…</p>}
          <div className="mt-1 max-h-56 space-y-1 overflow-y-auto">
            {candidates.data?.items.filter((p) => p.id !== product.id).map((p) => (
              <label key={p.id} className="flex items-center gap-2 text-sm">
                <input type="checkbox" checked={chosen.includes(p.id)} onChange={(e) => setChosen(e.target.checked ? [...chosen, p.id] : chosen.filter((id) => id !== p.id))} />
                {p.name} <span className="font-mono text-xs text-slate-500">{p.topicName}</span>
              </label>
            ))}
          </div>
          <div className="mt-2 flex gap-2">
            <Button disabled={save.isPending} onClick={() => save.mutate(chosen)}>Save inputs</Button>
            <Button variant="ghost" onClick={() => setEditing(false)}>Cancel</Button>
          </div>
          {save.isError && <ErrorAlert message={save.error.fields?.inputProductIds?.join(" ") ?? save.error.message} />}
        </fieldset>
      )}
    </Card>
  );
}

interface Binding { principal: string; operation: string; permission: string; patternType: string; resourceName: string; host: string }
type DecisionKind = "REMOVE" | "ADOPT" | "EXCEPTION";
interface Decided { binding: Binding; decision: DecisionKind; serviceAccountName?: string; domainSlug?: string; subscriptionId?: string; reason?: string }
interface Draft { decision: DecisionKind | ""; serviceAccount: string; reason: string }
const bindingsOf = (v: unknown): Binding[] => (Array.isArray(v) ? (v as Binding[]) : []);
const decisionsOf = (v: unknown): Decided[] => (Array.isArray(v) ? (v as Decided[]) : []);
const same = (a: Binding, b: Binding) =>
  a.principal === b.principal && a.operation === b.operation && a.permission === b.permission && a.patternType === b.patternType && a.resourceName === b.resourceName && a.host === b.host;

function decidedText(d: Decided): string {
  if (d.decision === "REMOVE") return "remove: the worker deletes it on approval";
  if (d.decision === "EXCEPTION") return `keep as an exception: ${d.reason ?? ""}`;
  return `keep as a subscription of ${d.serviceAccountName ?? "?"} (${d.domainSlug ?? "?"})${d.subscriptionId ? "" : ", granted on approval"}`;
}

/**
 * The claim's review (issue 31, point 2): each ACL found on the claimed topic
 * is kept — adopted as a subscription of a named service account, or kept as
 * a documented exception with a reason — or removed. A governance reviewer
 * other than the claimant decides; the worker carries it out on approval.
 */
export function ClaimAclsPanel({ product, canDecide }: { product: ProductDetail; canDecide: boolean }) {
  const client = useQueryClient();
  const found = bindingsOf(product.claim?.foundAcls);
  const decided = decisionsOf((product.claim as { aclDecisions?: unknown } | null)?.aclDecisions);
  const topic = product.claim?.topic ?? "";
  const [drafts, setDrafts] = useState<Draft[]>(() =>
    found.map((b) => {
      const d = decided.find((x) => same(x.binding, b));
      return { decision: d?.decision ?? "", serviceAccount: d?.serviceAccountName ?? "", reason: d?.reason ?? "" };
    }),
  );
  const save = useMutation<unknown, ApiError, Draft[]>({
    mutationFn: (list) =>
      api(`/api/v1/products/${product.id}/claim-acls`, {
        method: "POST",
        body: {
          decisions: list.flatMap((d, index) =>
            d.decision === "" ? [] : [{ index, decision: d.decision, ...(d.decision === "ADOPT" ? { serviceAccount: d.serviceAccount.trim() } : {}), ...(d.decision === "EXCEPTION" ? { reason: d.reason.trim() } : {}) }],
          ),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.products.detail(product.id) }),
  });
  if (!product.claim) return null;
  const editable = canDecide && product.status === "IN_REVIEW";
  const change = (i: number, patch: Partial<Draft>) => setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const undecided = drafts.filter((d) => d.decision === "").length;
  return (
    <Card title="Claimed topic: existing ACLs">
      <p className="text-sm text-slate-700">
        This product adopts the existing topic <span className="font-mono">{topic}</span> without recreating it: its records stay, its configs are set to the approved ones on approval.
        {found.length === 0 ? " No ACLs were found on it." : " These grants were on the topic when it was claimed; the catalog knows none of them. Each is kept — as a subscription of a named service account, or as a documented exception — or removed. A governance reviewer other than the claimant decides; the worker carries it out when the claim is approved."}
      </p>
      {found.length > 0 && (
        <ul className="mt-3 space-y-3 text-sm" data-testid="claim-acls">
          {found.map((b, i) => {
            const literal = b.patternType === "LITERAL" && b.resourceName === topic;
            const adoptable = literal && b.permission === "ALLOW" && (b.operation === "READ" || b.operation === "DESCRIBE");
            const label = `${b.principal} ${b.operation}`;
            const d = decided.find((x) => same(x.binding, b));
            const draft = drafts[i] ?? { decision: "", serviceAccount: "", reason: "" };
            return (
              <li key={i} className="rounded-md p-2 ring-1 ring-slate-200" data-testid="claim-acl">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-mono text-xs">{b.principal}</span> {b.permission} {b.operation} from {b.host}
                  {!literal && <span className="text-xs text-slate-500">({b.patternType === "PREFIXED" ? `prefix ${b.resourceName}` : "all topics"}: also covers other topics, so it cannot be removed with the claim)</span>}
                </div>
                {d ? (
                  <p className="mt-1 text-xs" data-testid="claim-acl-decision">
                    <Badge value={d.decision === "REMOVE" ? "REVOKED" : d.decision === "ADOPT" ? "ACTIVE" : "DEPRECATED"} label={d.decision === "REMOVE" ? "to be removed" : d.decision === "ADOPT" ? "adopted" : "exception"} /> {decidedText(d)}
                  </p>
                ) : (
                  <p className="mt-1 text-xs text-rose-700">Not decided yet.</p>
                )}
                {editable && (
                  <div className="mt-2 grid gap-2 sm:grid-cols-[16rem_1fr]">
                    <select className={inputClass} aria-label={`Decision for ${label}`} value={draft.decision} onChange={(e) => change(i, { decision: e.target.value as Draft["decision"] })}>
                      <option value="">Choose…</option>
                      <option value="ADOPT" disabled={!adoptable}>Keep: subscription of a service account</option>
                      <option value="EXCEPTION">Keep: documented exception</option>
                      <option value="REMOVE" disabled={!literal}>Remove</option>
                    </select>
                    {draft.decision === "ADOPT" && (
                      <input className={inputClass} aria-label={`Service account for ${label}`} placeholder="account name, e.g. analytics-dashboard" value={draft.serviceAccount} onChange={(e) => change(i, { serviceAccount: e.target.value })} />
                    )}
                    {draft.decision === "EXCEPTION" && (
                      <input className={inputClass} aria-label={`Reason for ${label}`} placeholder="why it stays outside the catalog (shown on the product)" value={draft.reason} onChange={(e) => change(i, { reason: e.target.value })} />
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {editable && found.length > 0 && (
        <div className="mt-3 flex flex-wrap items-center gap-3">
          <Button variant="secondary" disabled={save.isPending} onClick={() => save.mutate(drafts)}>Save ACL decisions</Button>
          <span className="text-xs text-slate-500">
            {undecided > 0 ? `${undecided} of ${found.length} not chosen yet; the claim is approved only once every ACL is decided.` : "Adopting an ACL of another principal moves its access to the named account (the old ACL is removed)."}
          </span>
          {save.isSuccess && <Notice>Saved.</Notice>}
          {save.isError && <ErrorAlert message={[save.error.message, ...Object.values(save.error.fields ?? {}).flat()].filter((m, k, all) => all.indexOf(m) === k).join(" ")} />}
        </div>
      )}
    </Card>
  );
}

/** `placeholder` stands in while the drift loads (the card's place held on the page). */
export function DriftPanel({ productId, placeholder = null }: { productId: string; placeholder?: ReactNode }) {
  const drift = useQuery({ queryKey: [...queryKeys.products.detail(productId), "drift"], queryFn: ({ signal }) => api<ProductDrift>(`/api/v1/products/${productId}/drift`, { signal }) });
  if (drift.isPending) return placeholder;
  if (drift.isError) return null;
  const d = drift.data;
  return (
    <Card title="Drift">
      <p className="text-sm text-slate-600" data-testid="drift-checked">
        {d.lastCheckedAt ? <>The worker last compared the cluster with the catalog <Age iso={d.lastCheckedAt} /> ago.</> : <>The worker has not finished a full reconcile yet.</>}
        {d.lastCheckError && <span className="text-rose-700"> Last check had an error: {d.lastCheckError}</span>}
      </p>
      {d.unknownGrants.length > 0 && (
        <div className="mt-3 rounded-md bg-rose-50 p-3 ring-1 ring-rose-200" data-testid="unknown-grants">
          <h3 className="text-sm font-semibold text-rose-900">Grants the catalog does not know ({d.unknownGrants.length})</h3>
          <p className="mt-1 text-xs text-rose-900">ACLs on {d.topic} that no subscription or producer grant explains, as the worker&apos;s last cluster scan found them. Remove them on the cluster, or turn them into subscriptions.</p>
          <ul className="mt-2 space-y-1 text-sm">
            {d.unknownGrants.map((g) => (
              <li key={`${g.principal} ${g.operation} ${g.permission} ${g.host} ${g.patternType} ${g.resourceName}`}>
                <span className="font-mono">{g.principal}</span> · {g.permission} {g.operation} from {g.host}
                {g.patternType !== "LITERAL" ? ` (${g.patternType} ${g.resourceName})` : ""} — <span className="text-slate-700">{g.why}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {d.grantExceptions.length > 0 && (
        <div className="mt-3 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200" data-testid="grant-exceptions">
          <h3 className="text-sm font-semibold text-amber-900">Documented exceptions ({d.grantExceptions.length})</h3>
          <p className="mt-1 text-xs text-amber-900">ACLs the claim&apos;s review kept on {d.topic} outside the catalog, with the reason it gave.</p>
          <ul className="mt-2 space-y-1 text-sm">
            {d.grantExceptions.map((g) => (
              <li key={`${g.principal} ${g.operation} ${g.permission} ${g.host} ${g.patternType} ${g.resourceName}`}>
                <span className="font-mono">{g.principal}</span> · {g.permission} {g.operation} from {g.host}
                {g.patternType !== "LITERAL" ? ` (${g.patternType} ${g.resourceName})` : ""} — <span className="text-slate-700">{g.reason}</span>
                {!g.present && <span className="text-xs text-slate-500"> (no longer on the cluster)</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {d.events.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">{d.unknownGrants.length === 0 ? "No drift found: the topic and its grants are as the catalog says." : "No drift repaired yet."}</p>
      ) : (
        <ul className="mt-2 space-y-1 text-sm" data-testid="drift-events">
          {d.events.map((e) => {
            const data = (e.data ?? {}) as { kind?: string; resource?: string; set?: Record<string, string>; was?: Record<string, string>; acl?: string; to?: number };
            return (
              <li key={e.id}>
                <span className="text-slate-500">{formatDateTime(e.at)}</span> · <span className="font-medium">{data.kind ?? "drift"}</span>
                {data.set && <> · set {Object.entries(data.set).map(([k, v]) => `${k}=${v}${data.was?.[k] !== undefined ? ` (was ${data.was[k]})` : ""}`).join(", ")}</>}
                {data.acl && <> · {data.acl}</>}
                {data.to !== undefined && <> · partitions → {data.to}</>}
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
