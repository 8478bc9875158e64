"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, type ApiError } from "@/lib/api-client";
import { environmentKeys, type EnvironmentState, type ProductEnvironments } from "@/lib/environments";
import { formatDateTime, formatDurationMs } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { Link } from "./link";
import { ReasonAction } from "./reason-form";
import { Badge, Button, Card, ErrorAlert, Field, inputClass } from "./ui";

const POLL_MS = 3_000;

type Action = { kind: "promote"; environment: string } | { kind: "approve"; id: string } | { kind: "reject"; id: string; reason: string };

function useEnvironmentAction(productId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, Action>({
    mutationFn: (a) =>
      a.kind === "promote"
        ? api(`/api/v1/products/${productId}/promote`, { method: "POST", body: { environment: a.environment } })
        : api(`/api/v1/promotions/${a.id}/${a.kind}`, { method: "POST", body: a.kind === "reject" ? { reason: a.reason } : undefined }),
    onSuccess: () =>
      Promise.all([client.invalidateQueries({ queryKey: environmentKeys.product(productId) }), client.invalidateQueries({ queryKey: queryKeys.audit.all })]),
  });
}

/**
 * The product in each environment side by side: the one it was published to
 * (the worker's own cluster) and every environment it was promoted to, with
 * promotion for owners and the promotion's review for governance. Shown only
 * where more than one environment exists, so a single-cluster platform looks
 * as it always did.
 */
export function EnvironmentsPanel({ productId }: { productId: string }) {
  const query = useQuery({
    queryKey: environmentKeys.product(productId),
    queryFn: ({ signal }) => api<ProductEnvironments>(`/api/v1/products/${productId}/environments`, { signal }),
    // While the worker provisions an approved promotion, its state changes on its own.
    refetchInterval: (q) => (q.state.data?.environments.some((e) => e.status === "APPROVED" || e.subscribers.some((s) => s.status === "APPROVED")) ? POLL_MS : false),
  });
  const action = useEnvironmentAction(productId);
  const data = query.data;
  if (!data || (data.environments.length === 1 && data.promotableTo.length === 0)) return null;
  return (
    <Card title="Environments" actions={data.environments.some((e) => e.status === "APPROVED") ? <span className="text-xs text-slate-500">Refreshing every {POLL_MS / 1000} s</span> : undefined}>
      <ul className="grid gap-3 sm:grid-cols-2" data-testid="environments" aria-label="The product in each environment">
        {data.environments.map((e) => (
          <EnvironmentColumn key={e.environment} state={e} action={action} />
        ))}
      </ul>
      {data.promotableTo.length > 0 && <PromoteForm targets={data.promotableTo} action={action} />}
      {action.isError && action.variables.kind !== "promote" && <div className="mt-3"><ErrorAlert message={action.error.message} /></div>}
    </Card>
  );
}

function EnvironmentColumn({ state: e, action }: { state: EnvironmentState; action: ReturnType<typeof useEnvironmentAction> }) {
  const retention = e.retentionMs === "-1" ? "forever" : formatDurationMs(Number(e.retentionMs));
  return (
    <li className="rounded-md p-3 ring-1 ring-slate-200" data-testid={`environment-${e.environment}`}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-mono text-sm font-semibold text-slate-900">
          {e.environment}
          {e.primary && <span className="ml-2 font-sans text-xs font-normal text-slate-600">published here</span>}
        </h3>
        <Badge value={e.status} />
      </div>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600">Topic</dt>
        <dd className="break-all font-mono text-xs">{e.topicName}</dd>
        <dt className="text-slate-600">Partitions</dt>
        <dd>{e.partitions}</dd>
        <dt className="text-slate-600">Retention</dt>
        <dd>{retention}</dd>
        <dt className="text-slate-600">Schema versions</dt>
        <dd>{e.schemaVersions.length > 0 ? e.schemaVersions.map((v) => `v${v}`).join(", ") : "—"}</dd>
        {!e.primary && (
          <>
            <dt className="text-slate-600">Promoted by</dt>
            <dd>{e.requestedBy ?? "—"}</dd>
            <dt className="text-slate-600">Decided by</dt>
            <dd>{e.decidedBy ? `${e.decidedBy}${e.decisionReason ? `: ${e.decisionReason}` : ""}` : "—"}</dd>
            <dt className="text-slate-600">On the cluster</dt>
            <dd>{e.provisionedAt ? formatDateTime(e.provisionedAt) : e.status === "APPROVED" ? "waiting for the worker…" : "—"}</dd>
          </>
        )}
        <dt className="text-slate-600">Subscribers</dt>
        <dd>{e.subscribers.length === 0 ? "none" : e.subscribers.length}</dd>
      </dl>
      {e.subscribers.length > 0 && (
        <ul className="mt-2 space-y-1 text-sm" aria-label={`Subscribers in ${e.environment}`}>
          {e.subscribers.map((s) => (
            <li key={s.subscriptionId} className="flex flex-wrap items-center gap-2">
              <Link href={`/subscriptions/${s.subscriptionId}`} className="break-all font-mono text-xs text-indigo-700 hover:underline">User:{s.account}</Link>
              <span className="text-xs text-slate-600">{s.domain}</span>
              <Badge value={s.status} />
            </li>
          ))}
        </ul>
      )}
      {e.lastError && <p className="mt-2 text-sm text-rose-700">The worker could not provision it yet: {e.lastError}</p>}
      {e.behind.length > 0 && !e.pendingUpdate && (
        <p className="mt-2 rounded-md bg-amber-50 p-2 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="behind">
          Behind: {e.behind.join("; ")} — promote again to carry it over (reviewed; {e.environment} keeps what it runs until then).
        </p>
      )}
      {e.pendingUpdate && (
        <p className="mt-2 rounded-md bg-slate-50 p-2 text-sm text-slate-800 ring-1 ring-slate-200" data-testid="pending-update">
          Update in review: {e.pendingUpdate.partitions} partitions, schema versions {e.pendingUpdate.schemaVersions.map((v) => `v${v}`).join(", ") || "—"}
          {e.pendingUpdate.requestedBy ? `, promoted by ${e.pendingUpdate.requestedBy}` : ""}. {e.environment} keeps running the current definition until a reviewer approves it.
        </p>
      )}
      {e.canDecide && e.deploymentId && (
        <div className="mt-3 flex flex-wrap items-start gap-2">
          <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "approve", id: e.deploymentId ?? "" })}>
            Approve for {e.environment}
          </Button>
          <ReasonAction
            label={`Reject for ${e.environment}`}
            confirmLabel="Reject promotion"
            pending={action.isPending}
            error={action.variables?.kind === "reject" ? action.error : null}
            onConfirm={(reason) => action.mutate({ kind: "reject", id: e.deploymentId ?? "", reason })}
          />
        </div>
      )}
    </li>
  );
}

function PromoteForm({ targets, action }: { targets: string[]; action: ReturnType<typeof useEnvironmentAction> }) {
  const [target, setTarget] = useState(targets[0] ?? "");
  const chosen = targets.includes(target) ? target : (targets[0] ?? "");
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    action.mutate({ kind: "promote", environment: chosen });
  }
  const failed = action.isError && action.variables.kind === "promote" ? action.error : null;
  const fieldMessages = Object.values(failed?.fields ?? {}).flat();
  return (
    <form onSubmit={submit} className="mt-4 flex flex-wrap items-end gap-3" aria-label="Promote to another environment">
      <Field id="promote-environment" label="Promote to" hint="Copies the approved definition and schema versions; a reviewer approves it for that environment.">
        {(p) => (
          <select {...p} className={`${inputClass} max-w-xs`} value={chosen} onChange={(ev) => setTarget(ev.target.value)}>
            {targets.map((t) => (
              <option key={t} value={t}>{t}</option>
            ))}
          </select>
        )}
      </Field>
      <Button type="submit" disabled={action.isPending}>Promote to {chosen}</Button>
      {failed && <div className="basis-full"><ErrorAlert message={fieldMessages.length > 0 ? fieldMessages.join(" ") : failed.message} /></div>}
    </form>
  );
}
