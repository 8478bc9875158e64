"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { ProductJob } from "@/lib/api-types";
import { lagText } from "@/lib/derived";
import { formatNumber, humanize } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { DerivedJobControls, JobCommandStatus } from "./derived-job-controls";
import { Age, Ago } from "./relative-time";
import { Badge, Card, DefinitionList, ErrorAlert } from "./ui";

/*
 * A derived product's Flink job on its page (issue 34): what the worker's
 * observer last read from Flink's REST API, served from the catalog by
 * GET /api/v1/products/{id}/job — state, uptime, records in and out per
 * second, watermark lag, last checkpoint, restarts, Flink's exception when it
 * failed, why it was stopped — and the statement it runs. Polled while the
 * section is on screen.
 */

export const JOB_POLL_MS = 5000;

/** States in which the job runs (or tries to), so uptime and rates mean something. */
const RUNNING_STATES = ["RUNNING", "RESTARTING", "CREATED", "INITIALIZING", "RECONCILING"];

function rate(v: number | null): string {
  return v === null ? "—" : `${formatNumber(v, v < 10 ? 2 : v < 100 ? 1 : 0)} /s`;
}

/**
 * `operable`: the viewer owns the product's domain and the product is live (pause, resume, replay offered);
 * `reviewedReplay`: its classification makes a replay wait for governance.
 */
export function DerivedJobPanel({ productId, domainId, statement, live, operable = false, reviewedReplay = false }: { productId: string; domainId: string; statement: string; live: boolean; operable?: boolean; reviewedReplay?: boolean }) {
  const job = useQuery({
    queryKey: queryKeys.products.job(productId),
    queryFn: ({ signal }) => api<ProductJob>(`/api/v1/products/${productId}/job`, { signal }),
    refetchInterval: live ? JOB_POLL_MS : false,
  });
  const data = job.data;
  const running = data ? RUNNING_STATES.includes(data.state) : false;
  return (
    <Card
      title="Flink job"
      actions={
        <span className="flex items-center gap-2">
          {data && <span data-testid="job-state"><Badge value={data.state} label={humanize(data.state)} /></span>}
          <span className="text-xs text-slate-600">{live ? `Live · every ${JOB_POLL_MS / 1000} s` : "Paused while off screen"}</span>
        </span>
      }
    >
      <div className="space-y-4" data-testid="derived-job">
        {job.isPending && <p className="text-sm text-slate-600">Loading the job…</p>}
        {job.isError && <ErrorAlert message={job.error.message} />}
        {data && data.state === "NOT_DEPLOYED" && (
          <p className="text-sm text-slate-700">Not running yet: the worker starts the job on the platform&apos;s Flink cluster once the product is approved and its topic exists.{data.error && " Its last attempt failed (below)."}</p>
        )}
        {data && data.state === "STOPPED" && (
          <div className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="job-stopped">
            <p className="font-medium">Stopped{data.stoppedAt && <> <Ago iso={data.stoppedAt} /></>}</p>
            {data.stopReason && <p className="mt-1">{data.stopReason}</p>}
          </div>
        )}
        {data && <JobCommandStatus job={data} />}
        {data && operable && <DerivedJobControls productId={productId} domainId={domainId} statement={statement} job={data} reviewedReplay={reviewedReplay} />}
        {data && data.state !== "NOT_DEPLOYED" && (
          <DefinitionList
            items={[
              ["State", humanize(data.state)],
              ["Uptime", running && data.startedAt ? <Age key="u" iso={data.startedAt} /> : "—"],
              ["Records in", rate(data.recordsInPerSecond)],
              ["Records out", rate(data.recordsOutPerSecond)],
              ["Watermark lag", data.watermarkLagMs === null ? "—" : lagText(data.watermarkLagMs)],
              ["Last checkpoint", data.lastCheckpointAt ? <Ago key="c" iso={data.lastCheckpointAt} /> : "none yet"],
              ["Restarts", data.restarts === null ? "—" : formatNumber(data.restarts)],
              ["Statement version", <span key="v" data-testid="job-statement-version">{`v${data.jobStatementVersion ?? data.statementVersion}`}{data.jobStatementVersion !== null && data.jobStatementVersion !== data.statementVersion ? (data.statementVersionOnResume !== null ? ` (v${data.statementVersion} approved while paused: it runs on resume)` : ` (v${data.statementVersion} approved, the worker starts it next)`) : ""}</span>],
              ["Restored from savepoint", data.restoredFromSavepoint === null ? "—" : data.restoredFromSavepoint ? "yes" : "no"],
              ["Job id", data.jobId ? <code key="j" className="break-all font-mono text-xs">{data.jobId}</code> : "—"],
              ["Observed", data.observedAt ? <Ago key="o" iso={data.observedAt} /> : "not yet"],
            ]}
          />
        )}
        {data?.error && (
          <div>
            <h3 className="text-sm font-semibold text-rose-800">{data.state === "NOT_DEPLOYED" ? "Why it is not running" : "Flink's exception"}</h3>
            <pre className="mt-1 max-h-60 overflow-auto whitespace-pre-wrap break-words rounded-md bg-rose-50 p-3 font-mono text-xs text-rose-900 ring-1 ring-rose-200" tabIndex={0} aria-label="Flink's exception" data-testid="job-error">
              {data.error}
            </pre>
          </div>
        )}
        <div>
          <h3 className="text-sm font-semibold text-slate-900">Statement (version {data?.statementVersion ?? 1})</h3>
          <pre className="mt-1 max-h-80 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100" tabIndex={0} aria-label="Flink SQL statement" data-testid="job-statement">
            {statement}
          </pre>
        </div>
      </div>
    </Card>
  );
}
