"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "@/components/link";
import { Age, Ago, ClockText } from "@/components/relative-time";
import { Badge, Button, Card, ErrorAlert, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { PlatformOverview, PlatformTask } from "@/lib/api-types";
import { age, formatDateTime } from "@/lib/format";
import { useRetryTask } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

const POLL_MS = 5000;
/** The worker heartbeats every 10 s; three missed beats means it is probably gone. */
const STALE_MS = 30_000;

export function PlatformView() {
  const overview = useQuery({
    queryKey: queryKeys.platform,
    queryFn: ({ signal }) => api<PlatformOverview>("/api/v1/platform", { signal }),
    refetchInterval: POLL_MS,
  });
  if (overview.isPending) return <Loading />;
  if (overview.isError) return <ErrorAlert message={overview.error.message} />;
  const data = overview.data;
  return (
    <div className="space-y-6">
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4" data-testid="task-counts">
        {(["PENDING", "RUNNING", "FAILED", "DONE"] as const).map((status) => (
          <div key={status} className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
            <dt className="text-xs uppercase tracking-wide text-slate-500">{status.toLowerCase()}</dt>
            <dd className={status === "FAILED" && data.counts.FAILED > 0 ? "mt-1 text-2xl font-semibold text-rose-700" : "mt-1 text-2xl font-semibold"} data-testid={`count-${status}`}>
              {data.counts[status]}
            </dd>
          </div>
        ))}
      </dl>

      <FailedTasks tasks={data.failed} />

      <Card title={`Queue (${data.pending.length + data.running.length})`} actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
        {data.pending.length + data.running.length === 0 ? (
          <p className="text-sm text-slate-600">Nothing waiting: every task is done or failed.</p>
        ) : (
          <TaskTable
            testId="queue"
            tasks={[...data.running, ...data.pending]}
            extra={{
              head: "When",
              cell: (t) =>
                t.status === "RUNNING" ? (
                  <>leased by <span className="font-mono">{t.leasedBy ?? "?"}</span>{t.leaseUntil && <> until {formatDateTime(t.leaseUntil)}</>}</>
                ) : (
                  <>
                    <ClockText iso={t.runAfter} text={new Date(t.runAfter).getTime() > Date.now() ? `backing off, next attempt in ${secondsUntil(t.runAfter)} s` : `due, waiting ${age(t.runAfter)}`} />
                    {t.lastError && <span className="mt-1 block break-words text-rose-700">last error: {t.lastError}</span>}
                  </>
                ),
            }}
          />
        )}
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Worker instances">
          {data.workers.length === 0 ? (
            <p className="text-sm text-slate-600">No worker has reported in. Until one runs, approvals stay queued.</p>
          ) : (
            <ul className="divide-y divide-slate-100 text-sm" data-testid="workers">
              {data.workers.map((w) => {
                const stale = w.status !== "stopped" && overview.dataUpdatedAt - new Date(w.lastSeenAt).getTime() > STALE_MS;
                return (
                  <li key={w.workerId} className="flex items-start justify-between gap-3 py-2">
                    <div className="min-w-0">
                      <p className="font-mono text-xs">{w.workerId}</p>
                      <p className="text-xs text-slate-500">started {formatDateTime(w.startedAt)} · last seen <Ago iso={w.lastSeenAt} /></p>
                      {stale && <p className="text-xs text-rose-700">Not seen for <Age iso={w.lastSeenAt} />: probably gone without shutting down.</p>}
                    </div>
                    <Badge value={stale ? "FAILED" : w.status === "ready" ? "ACTIVE" : w.status === "stopped" ? "RETIRED" : "IN_REVIEW"} label={stale ? "unresponsive" : w.status} />
                  </li>
                );
              })}
            </ul>
          )}
        </Card>

        <Card title="Last full reconciles">
          {data.reconcileRuns.length === 0 ? (
            <p className="text-sm text-slate-600">No full reconcile has run yet.</p>
          ) : (
            <ul className="space-y-3 text-sm" data-testid="reconcile-runs">
              {data.reconcileRuns.map((r) => (
                <li key={r.id} className="rounded-md p-2 ring-1 ring-slate-200">
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <span>{formatDateTime(r.startedAt)}</span>
                    <Badge value={r.error ? "FAILED" : r.finishedAt === null ? "RUNNING" : r.driftCount > 0 ? "IN_REVIEW" : "DONE"} label={reconcileLabel(r)} />
                  </div>
                  <p className="text-xs text-slate-500">
                    <span className="font-mono">{r.workerId}</span>
                    {r.finishedAt && <> · {((new Date(r.finishedAt).getTime() - new Date(r.startedAt).getTime()) / 1000).toFixed(1)} s</>}
                  </p>
                  {r.error && <p className="mt-1 whitespace-pre-line text-xs text-rose-700">{r.error}</p>}
                  {r.drift.length > 0 && (
                    <details className="mt-1">
                      <summary className="cursor-pointer text-xs font-medium text-indigo-700">What was found</summary>
                      <ul className="mt-1 space-y-1 text-xs">
                        {r.drift.map((d, i) => (
                          <li key={i}>
                            <span className="font-medium">{d.kind}</span> <span className="font-mono">{d.resource}</span>
                            {d.detail && <span className="block break-all text-slate-500">{d.detail}</span>}
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </div>
  );
}

function secondsUntil(iso: string): number {
  return Math.max(1, Math.ceil((new Date(iso).getTime() - Date.now()) / 1000));
}

/** A run with errors checked only part of the cluster: "no drift" would claim too much. */
function reconcileLabel(r: { finishedAt: string | null; driftCount: number; error: string | null }): string {
  if (r.finishedAt === null) return "running";
  const drift = r.driftCount === 0 ? "no drift" : `${r.driftCount} drift repaired`;
  return r.error ? (r.driftCount === 0 ? "incomplete: errors" : `${drift}, errors`) : drift;
}

function FailedTasks({ tasks }: { tasks: PlatformTask[] }) {
  const retry = useRetryTask();
  return (
    <Card title={`Failed tasks (${tasks.length})`}>
      <ErrorAlert message={retry.isError ? retry.error.message : null} />
      {tasks.length === 0 ? (
        <p className="text-sm text-slate-600">No failed task.</p>
      ) : (
        <TaskTable
          testId="failed-tasks"
          tasks={tasks}
          extra={{
            head: "Error",
            cell: (t) => (
              <div className="space-y-2">
                <p className="max-w-md whitespace-pre-line break-words text-rose-800">{t.lastError ?? "no message recorded"}</p>
                <Button variant="secondary" disabled={retry.isPending} onClick={() => retry.mutate({ taskId: t.id, ...(t.entityType === "DataProduct" ? { productId: t.entityId } : t.entityType === "Subscription" ? { subscriptionId: t.entityId } : {}) })} aria-label={`Retry ${t.label} for ${t.entity.label}`}>
                  Retry
                </Button>
              </div>
            ),
          }}
        />
      )}
    </Card>
  );
}

function TaskTable({ tasks, extra, testId }: { tasks: PlatformTask[]; extra: { head: string; cell: (t: PlatformTask) => ReactNode }; testId: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm" data-testid={testId}>
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-4">For</th>
            <th scope="col" className="py-2 pr-4">Step</th>
            <th scope="col" className="py-2 pr-4">Status</th>
            <th scope="col" className="py-2 pr-4">Attempts</th>
            <th scope="col" className="py-2">{extra.head}</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 align-top">
          {tasks.map((t) => (
            <tr key={t.id} data-task-id={t.id}>
              <td className="py-2 pr-4">
                {t.entity.href ? <Link href={t.entity.href} className="font-medium text-indigo-700 hover:underline">{t.entity.label}</Link> : <span className="font-medium">{t.entity.label}</span>}
                <p className="text-xs text-slate-500">{t.entityType}</p>
              </td>
              <td className="py-2 pr-4">
                {t.step}. {t.label}
                <p className="font-mono text-xs text-slate-500">{t.kind}</p>
              </td>
              <td className="py-2 pr-4"><Badge value={t.status} /></td>
              <td className="py-2 pr-4 tabular-nums">{t.attempts}</td>
              <td className="py-2 text-xs text-slate-600">{extra.cell(t)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
