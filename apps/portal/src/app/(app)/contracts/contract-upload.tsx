"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type ChangeEvent } from "react";
import { Link } from "@/components/link";
import { PolicyResultList } from "@/components/policy-results";
import { Badge, Button, Card, ErrorAlert, Field, inputClass } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { ContractApplyResult, ContractPlan } from "@/lib/api-types";
import { useHydrated } from "@/lib/use-hydrated";

const ACTION_LABEL: Record<string, string> = {
  create: "create",
  update: "update",
  "new-schema-version": "new schema version",
  "new-major-version": "new major version",
  "no-change": "no change",
  skipped: "skipped (not yours)",
  error: "error",
};

/** Apply results add `applied` and `refusal` to a plan item. */
function outcome(item: object): { applied: boolean; refusal: string | null } {
  const applied = "applied" in item && item.applied === true;
  const refusal = "refusal" in item && typeof item.refusal === "object" && item.refusal !== null && "message" in item.refusal && typeof item.refusal.message === "string" ? item.refusal.message : null;
  return { applied, refusal };
}

const show = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

export function ContractUpload() {
  const [content, setContent] = useState("");
  const hydrated = useHydrated();
  const [source, setSource] = useState("portal upload");
  const [newMajor, setNewMajor] = useState(false);
  const body = () => ({ contracts: [{ content, source }] });
  const plan = useMutation<ContractPlan, ApiError, void>({ mutationFn: () => api("/api/v1/contracts/plan", { method: "POST", body: body() }) });
  const apply = useMutation<ContractApplyResult, ApiError, void>({ mutationFn: () => api("/api/v1/contracts", { method: "POST", body: { ...body(), ...(newMajor ? { allowNewMajorVersion: true } : {}) } }) });
  const needsMajor = plan.data?.items.some((i) => i.action === "new-major-version") ?? false;

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    setContent(await file.text());
    setSource(`portal upload: ${file.name}`);
    plan.reset();
    apply.reset();
  }

  const items = apply.data?.items ?? plan.data?.items ?? [];
  return (
    <div className="space-y-6">
      <Card>
        <div className="space-y-4">
          <div>
            <label htmlFor="contractFile" className="text-sm font-medium text-slate-800">Contract file</label>
            <input id="contractFile" type="file" accept=".yaml,.yml,.json,application/yaml,application/json" onChange={(e) => void onFile(e)} className="mt-1 block text-sm" />
          </div>
          <Field id="contractContent" label="Contract (YAML or JSON)">
            {(a) => <textarea {...a} rows={14} spellCheck={false} readOnly={!hydrated} value={content} onChange={(e) => { setContent(e.target.value); setNewMajor(false); plan.reset(); apply.reset(); }} className={`${inputClass} font-mono text-xs`} />}
          </Field>
          <ErrorAlert message={plan.error?.message ?? apply.error?.message ?? null} />
          {needsMajor && !apply.data && (
            <label className="flex items-start gap-2 text-sm text-slate-800">
              <input type="checkbox" className="mt-1" checked={newMajor} onChange={(e) => setNewMajor(e.target.checked)} />
              <span>Create the new major version. It goes to review; the current version stays as it is until governance approves the new one, and is deprecated only then.</span>
            </label>
          )}
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" disabled={!content || plan.isPending} onClick={() => { apply.reset(); plan.mutate(); }}>{plan.isPending ? "Planning…" : "Plan"}</Button>
            <Button disabled={!content || apply.isPending || !plan.data || plan.data.items.some((i) => i.action === "error" || i.policy.blocked) || (needsMajor && !newMajor)} onClick={() => apply.mutate()}>
              {apply.isPending ? "Applying…" : "Apply"}
            </Button>
          </div>
        </div>
      </Card>
      {items.map((item, i) => (
        <Card key={i} title={<>{item.contractId ?? "Contract"} · <Badge value={item.action === "error" ? "FAILED" : item.action === "no-change" ? "DONE" : "PENDING"} label={ACTION_LABEL[item.action] ?? item.action} /></>}>
          <div className="space-y-3 text-sm" data-testid="contract-plan">
            {item.productId && <p><Link className="text-indigo-700 hover:underline" href={`/products/${item.productId}`}>{item.topic}</Link>{item.status ? ` · ${item.status}` : ""}</p>}
            {item.targetTopic && <p>New topic: <span className="font-mono">{item.targetTopic}</span></p>}
            {item.errors.length > 0 && <ErrorAlert message={item.errors.join(" ")} />}
            {item.skipped && <p className="text-slate-700">{item.skipped}</p>}
            {outcome(item).refusal && <ErrorAlert message={outcome(item).refusal} />}
            {outcome(item).applied && <p className="font-medium text-emerald-700">Applied.</p>}
            {item.notes.map((n) => <p key={n} className="text-slate-600">{n}</p>)}
            {item.changes.length > 0 && (
              <table className="w-full text-left text-xs">
                <caption className="sr-only">Field changes</caption>
                <thead className="text-slate-500"><tr><th scope="col" className="py-1 pr-3">Field</th><th scope="col" className="py-1 pr-3">Now</th><th scope="col" className="py-1">In the file</th></tr></thead>
                <tbody className="divide-y divide-slate-100 font-mono">
                  {item.changes.map((c) => <tr key={c.field}><td className="py-1 pr-3">{c.field}</td><td className="py-1 pr-3 text-rose-700">{show(c.from)}</td><td className="py-1 text-emerald-700">{show(c.to)}</td></tr>)}
                </tbody>
              </table>
            )}
            {item.schema.issues.length > 0 && (
              <ul className="list-disc pl-5 text-rose-700">{item.schema.issues.map((s, j) => <li key={j}>{s.message} <code className="text-xs">{s.rule}</code></li>)}</ul>
            )}
            {item.policy.results.length > 0 && <PolicyResultList results={item.policy.results} />}
          </div>
        </Card>
      ))}
    </div>
  );
}
