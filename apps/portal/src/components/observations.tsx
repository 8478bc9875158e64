"use client";

import { memo, type ReactNode } from "react";
import type { ConsumerLag, ProductObservations } from "@/lib/api-types";
import { formatDateTime, formatDurationMs } from "@/lib/format";
import {
  describeRange,
  formatBytes,
  formatCount,
  formatLagTime,
  formatRate,
  lagSeries,
  storageSplit,
  throughputSeries,
  type LagSample,
  type TimeEstimate,
} from "@/lib/observations";
import { LagChart, ThroughputChart } from "./lazy-charts";
import { Ago } from "./relative-time";
import { Badge } from "./ui";

/* Building blocks for the live figures the worker records: tiered storage, throughput, lag (provisioning: provisioning-steps.tsx). */

export { ProvisioningSteps, type StepView } from "./provisioning-steps";

function timeText(t: TimeEstimate): string {
  if (t.kind === "about") return `about ${formatDateTime(t.at)}`;
  if (t.kind === "before") return `before ${formatDateTime(t.at)} (older than the history kept)`;
  return "unknown";
}

function Stat({ label, value, hint, testId }: { label: string; value: ReactNode; hint?: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-sm font-medium text-slate-900" data-testid={testId}>{value}</dd>
      {hint && <dd className="text-xs text-slate-500">{hint}</dd>}
    </div>
  );
}

const NOT_OBSERVED = "not observed yet";

/*
 * The panels below take the slices of an observation they show, not the whole
 * answer, and are memoised: TanStack Query's structural sharing keeps a slice
 * that did not change the same object across polls, so a 3 s poll re-renders
 * only the panels whose figures moved.
 */

/** Tiered storage on/off, local hot window, bytes per tier, and the replay window. */
export const TieredStoragePanel = memo(function TieredStoragePanel({ tieredStorage: tiered, topic, replay }: Pick<ProductObservations, "tieredStorage" | "topic" | "replay">) {
  const split = topic ? storageSplit(topic.localBytes, topic.remoteBytes) : null;
  return (
    <div className="space-y-4" data-testid="tiered-storage">
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Stat label="Tiered storage" value={<Badge value={tiered.enabled ? "ACTIVE" : "DRAFT"} label={tiered.enabled ? "on" : "off"} />} testId="tiered-enabled" />
        <Stat label="Local hot window" value={tiered.enabled ? formatDurationMs(tiered.localRetentionMs) : "— (all local)"} hint={`retention ${formatDurationMs(tiered.retentionMs)}`} />
        <Stat label="Bytes on brokers (local)" value={topic ? formatBytes(topic.localBytes) : NOT_OBSERVED} testId="local-bytes" />
        <Stat
          label="Bytes in object storage (remote)"
          value={topic ? formatBytes(topic.remoteBytes) : NOT_OBSERVED}
          hint={topic && topic.remoteBytes === null ? "the cluster does not report it" : undefined}
          testId="remote-bytes"
        />
      </dl>

      {split && split.total > 0 && (
        <div>
          <div className="flex h-3 w-full overflow-hidden rounded-full bg-slate-100" role="img" aria-label={`${split.localPct} % of bytes local, ${split.remotePct} % in object storage`} data-testid="storage-bar">
            <div className="h-full bg-indigo-500" style={{ width: `${split.localPct}%` }} />
            <div className="h-full bg-sky-300" style={{ width: `${split.remotePct}%` }} />
          </div>
          <p className="mt-1 flex gap-4 text-xs text-slate-600">
            <span><span aria-hidden="true" className="mr-1 inline-block h-2 w-2 rounded-full bg-indigo-500" />local {split.localPct} %</span>
            <span><span aria-hidden="true" className="mr-1 inline-block h-2 w-2 rounded-full bg-sky-300" />object storage {split.remotePct} %</span>
          </p>
        </div>
      )}

      <div className="rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="replay-window">
        <h3 className="text-sm font-semibold text-slate-900">Replay window</h3>
        {!topic || !replay ? (
          <p className="mt-1 text-sm text-slate-600">Not observed yet: the worker records these figures a few seconds after the topic exists on the cluster.</p>
        ) : replay.records === 0 ? (
          <p className="mt-1 text-sm text-slate-600">Nothing to replay yet: the topic holds no records.</p>
        ) : (
          <>
            <dl className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-3">
              <Stat label="Replayable records" value={formatCount(replay.records)} hint={`the oldest written ${timeText(replay.from)}`} testId="replay-records" />
              <Stat
                label="Served from object storage"
                value={replay.remoteRecords === null ? "unknown" : `${formatCount(replay.remoteRecords)} records`}
                hint={
                  replay.remoteRecords === null
                    ? "the cluster did not report its earliest local offset"
                    : replay.remoteRecords > 0
                      ? `those written before ${timeText(replay.localFrom)}`
                      : "everything is still on the brokers' disks"
                }
                testId="replay-remote"
              />
              <Stat label="Observed" value={<Ago iso={topic.observedAt} />} hint={`${topic.partitions} partitions`} />
            </dl>
            <details className="mt-3">
              <summary className="cursor-pointer text-sm font-medium text-indigo-700">Offsets per partition</summary>
              <div className="mt-2 overflow-x-auto">
                <table className="w-full text-left text-xs" data-testid="replay-partitions">
                  <thead className="uppercase text-slate-500">
                    <tr>
                      <th scope="col" className="py-1 pr-3">Partition</th>
                      <th scope="col" className="py-1 pr-3">Replay from offset</th>
                      <th scope="col" className="py-1 pr-3">From object storage</th>
                      <th scope="col" className="py-1 pr-3">From local disk</th>
                      <th scope="col" className="py-1">End offset</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-200 font-mono">
                    {replay.partitions.map((p) => (
                      <tr key={p.partition}>
                        <td className="py-1 pr-3">{p.partition}</td>
                        <td className="py-1 pr-3">{formatCount(p.from)}</td>
                        <td className="py-1 pr-3">{describeRange(p.remote)}</td>
                        <td className="py-1 pr-3">{describeRange(p.local)}</td>
                        <td className="py-1">{formatCount(p.end)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </>
        )}
      </div>
    </div>
  );
});

export const ThroughputPanel = memo(function ThroughputPanel({ throughput, topic }: Pick<ProductObservations, "throughput" | "topic">) {
  const points = throughputSeries(throughput);
  const known = points.filter((p) => p.rate !== null);
  return (
    <div className="space-y-2" data-testid="throughput">
      <p className={topic ? "text-2xl font-semibold tabular-nums" : "text-sm font-medium text-slate-600"} data-testid="throughput-now">
        {topic ? formatRate(topic.messagesPerSecond) : NOT_OBSERVED}
      </p>
      {topic && topic.messagesPerSecond === null && <p className="text-xs text-slate-500">The rate needs two observations; it appears after the next one.</p>}
      {known.length >= 2 ? (
        <ThroughputChart points={points} label={`Messages per second, one bar per minute over the last ${points.length} minutes; now ${formatRate(topic?.messagesPerSecond ?? null)}.`} />
      ) : (
        <p className="text-xs text-slate-500">The chart fills in as the worker records one bar per minute.</p>
      )}
    </div>
  );
});

/** Each consumer group's state, total and per-partition lag, and the lag history. */
type GroupView = Omit<ConsumerLag, "domainName" | "account" | "assignment"> & { domainName?: string | null; account?: string | null; assignment?: ConsumerLag["assignment"] };

export const ConsumerLagList = memo(function ConsumerLagList({ consumers, samples, empty, showSubscriber }: { consumers: GroupView[]; samples: LagSample[]; empty: ReactNode; showSubscriber?: boolean }) {
  if (consumers.length === 0) return <div className="text-sm text-slate-600">{empty}</div>;
  const series = lagSeries(samples);
  const total = consumers.reduce((a, c) => a + c.totalLag, 0);
  return (
    <div className="space-y-4">
      {series.points.length >= 2 ? (
        <LagChart series={series} label={`Lag over time of ${series.groups.length} consumer group${series.groups.length === 1 ? "" : "s"}; now ${formatCount(total)} messages in total.`} />
      ) : (
        <p className="text-xs text-slate-500">The lag chart fills in as the worker records one point per minute.</p>
      )}
      <ul className="space-y-3" data-testid="consumer-groups">
        {consumers.map((c) => (
          <li key={c.groupId} className="rounded-md p-3 ring-1 ring-slate-200">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <div className="min-w-0">
                <p className="font-mono text-sm font-medium">{c.groupId}</p>
                {showSubscriber && c.domainName && (
                  <p className="text-xs text-slate-500">
                    {c.domainName} · User:{c.account}
                  </p>
                )}
              </div>
              <Badge value={c.state.toUpperCase()} label={c.state} />
            </div>
            <dl className="mt-2 grid grid-cols-3 gap-3">
              <Stat label="Lag" value={`${formatCount(c.totalLag)} messages`} testId="group-lag" />
              <Stat label="Behind by" value={formatLagTime(c.timeLagMs)} />
              <Stat label="Members" value={c.members} hint={<>observed <Ago iso={c.observedAt} /></>} />
            </dl>
            {(c.assignment ?? []).length > 0 && (
              <div className="mt-2 space-y-0.5 text-xs text-slate-600" data-testid="group-assignment">
                {(c.assignment ?? []).map((m) => (
                  <p key={m.memberId}>
                    <span className="font-mono">{m.clientId}</span> ({m.clientHost}) reads partition{m.partitions.length === 1 ? "" : "s"} {m.partitions.join(", ")}
                  </p>
                ))}
              </div>
            )}
            <details className="mt-2">
              <summary className="cursor-pointer text-sm font-medium text-indigo-700">Lag per partition</summary>
              <table className="mt-2 w-full text-left text-xs" data-testid="partition-lag">
                <thead className="uppercase text-slate-500">
                  <tr>
                    <th scope="col" className="py-1 pr-3">Partition</th>
                    <th scope="col" className="py-1 pr-3">Committed</th>
                    <th scope="col" className="py-1 pr-3">End offset</th>
                    <th scope="col" className="py-1">Lag</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-200 font-mono">
                  {c.partitions.map((p) => (
                    <tr key={p.partition}>
                      <td className="py-1 pr-3">{p.partition}</td>
                      <td className="py-1 pr-3">{p.committedOffset === null ? "none yet" : formatCount(p.committedOffset)}</td>
                      <td className="py-1 pr-3">{formatCount(p.endOffset)}</td>
                      <td className="py-1">{formatCount(p.lag)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
});
