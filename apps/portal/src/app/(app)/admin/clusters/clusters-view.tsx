"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import { environmentKeys, type ClusterInfo } from "@/lib/environments";
import { age, formatDateTime, formatDurationMs } from "@/lib/format";
import { useAdminMutation } from "@/lib/mutations";
import { ClusterFields, minRetentionMsOf, usesSasl, type ClusterFormFields } from "./cluster-fields";
import { EditCluster } from "./edit-cluster";

export function ClustersView() {
  // Live: a broker going down or coming back shows within one refresh (paused while the tab is hidden).
  const clusters = useQuery({ queryKey: environmentKeys.clusters(), queryFn: ({ signal }) => api<ClusterInfo[]>("/api/v1/clusters", { signal }), refetchInterval: 10_000 });
  const [editing, setEditing] = useState<string | null>(null);
  const edited = clusters.data?.find((c) => c.id === editing && !c.primary);
  return (
    <div className="space-y-6">
      <Card title="Environments">
        <p className="mb-3 text-sm text-slate-600">
          The worker&apos;s own cluster (<span className="font-mono">KAFKA_BROKERS</span>) is the environment products are published to; it records itself here. Every registered
          cluster is reconciled by the worker with the admin credentials stored here; a product reaches it by promotion and its own review. Passwords are stored encrypted and never shown again.
        </p>
        {clusters.isPending && <Loading />}
        {clusters.isError && <ErrorAlert message={clusters.error.message} />}
        {clusters.data && clusters.data.length === 0 && <p className="text-sm text-slate-600">No cluster recorded yet: the worker records its own when it starts.</p>}
        {clusters.data && clusters.data.length > 0 && (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="clusters">
              <caption className="sr-only">Clusters named as environments</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th scope="col" className="py-2 pr-4">Environment</th>
                  <th scope="col" className="py-2 pr-4">Bootstrap</th>
                  <th scope="col" className="py-2 pr-4">Security</th>
                  <th scope="col" className="py-2 pr-4">Admin credentials</th>
                  <th scope="col" className="py-2 pr-4">Bounds</th>
                  <th scope="col" className="py-2 pr-4">Worker</th>
                  <th scope="col" className="py-2 pr-4">Brokers</th>
                  <th scope="col" className="py-2"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {clusters.data.map((c) => (
                  <tr key={c.id} data-testid="cluster-row">
                    <td className="py-2 pr-4 font-mono text-xs font-semibold">
                      {c.environment}
                      {c.primary && <span className="ml-2 font-sans font-normal text-slate-600">(worker&apos;s own)</span>}
                    </td>
                    <td className="py-2 pr-4 break-all font-mono text-xs">{c.bootstrap}</td>
                    <td className="py-2 pr-4 text-xs">{c.securityProtocol}{c.saslMechanism !== "none" ? ` · ${c.saslMechanism}` : ""}</td>
                    <td className="py-2 pr-4 text-xs">{c.primary ? "the worker's configuration" : c.adminUser ? <>{c.adminUser} · {c.hasPassword ? "password stored (encrypted)" : "no password"}</> : "—"}</td>
                    <td className="py-2 pr-4 text-xs">
                      {[c.maxPartitions !== null ? `≤ ${c.maxPartitions} partitions` : null, c.minRetentionMs !== null ? `retention ≥ ${formatDurationMs(c.minRetentionMs)}` : null].filter(Boolean).join(", ") || "global policy only"}
                    </td>
                    <td className="py-2 pr-4 text-xs">
                      {c.lastError ? <Badge value="FAILED" label="unreachable" /> : c.lastSeenAt ? <Badge value="ACTIVE" label="reached" /> : <Badge value="PENDING" label="not yet" />}
                      <div className="mt-1 text-slate-600">{c.lastError ?? (c.lastSeenAt ? formatDateTime(c.lastSeenAt) : "")}</div>
                    </td>
                    <td className="py-2 pr-4 text-xs" data-testid="cluster-brokers">
                      <Brokers cluster={c} />
                    </td>
                    <td className="py-2 text-xs">
                      {/* The worker's own cluster is its configuration, not editable here. */}
                      {!c.primary && (
                        <Button variant="secondary" onClick={() => setEditing(c.id)} aria-label={`Edit ${c.environment}`}>
                          Edit
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      <BrokerOutages clusters={clusters.data ?? []} />
      {edited && <EditCluster key={edited.id} cluster={edited} onDone={() => setEditing(null)} />}
      <RegisterCluster />
    </div>
  );
}

/** How many of the brokers the worker has seen are up, and which are down since when (each down one can be forgotten). */
function Brokers({ cluster }: { cluster: ClusterInfo }) {
  const [forgetting, setForgetting] = useState<number | null>(null);
  if (cluster.brokers.length === 0) return <span className="text-slate-600">not observed yet</span>;
  const down = cluster.brokers.filter((b) => b.downSince !== null);
  return (
    <>
      {down.length === 0 ? <Badge value="ACTIVE" label={`${cluster.brokers.length} of ${cluster.brokers.length} up`} /> : <Badge value="FAILED" label={`${cluster.brokers.length - down.length} of ${cluster.brokers.length} up`} />}
      {down.length > 0 && (
        <ul className="mt-1 space-y-1 text-slate-700">
          {down.map((b) => (
            <li key={b.nodeId}>
              <span data-testid="broker-down">
                Broker {b.nodeId} <span className="font-mono">{b.address}</span> down since {formatDateTime(b.downSince ?? "")}
              </span>
              {b.forgetRequestedAt ? (
                <span className="ml-2 text-slate-600" data-testid="broker-forget-pending">
                  — forgetting: the worker removes it at its next look
                </span>
              ) : forgetting === b.nodeId ? (
                <ForgetBroker cluster={cluster} broker={b} onDone={() => setForgetting(null)} />
              ) : (
                <Button variant="secondary" className="ml-2 px-2 py-0.5 text-xs" onClick={() => setForgetting(b.nodeId)} aria-label={`Forget broker ${b.nodeId} of ${cluster.environment}`}>
                  Forget…
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * Forgetting a broker that is down for good (decommissioned): it leaves the
 * cluster's count and its outage ends as "forgotten". The server refuses a
 * broker that is up again (BROKER_UP); a reason is recorded in the audit log.
 */
function ForgetBroker({ cluster, broker, onDone }: { cluster: ClusterInfo; broker: ClusterInfo["brokers"][number]; onDone: () => void }) {
  const forget = useAdminMutation();
  const [reason, setReason] = useState("");
  const id = `forget-${cluster.id}-${broker.nodeId}`;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    forget.mutate({ method: "POST", path: `/api/v1/clusters/${cluster.id}/brokers/${broker.nodeId}/forget`, body: { reason } }, { onSuccess: onDone });
  }
  return (
    <form onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && onDone()} aria-label={`Forget broker ${broker.nodeId} of ${cluster.environment}`} className="mt-1 space-y-2 rounded-md bg-amber-50 p-2 ring-1 ring-amber-200" data-testid="forget-broker-form">
      <p>
        Only for a broker that is gone for good (decommissioned): at its next look at the cluster the worker removes it from the count and ends its outage as forgotten — unless it is back by then. If node {broker.nodeId} joins again later, it is listed as a new broker.
      </p>
      <Field id={id} label="Reason" errors={forget.error?.fields?.reason}>
        {(props) => <input {...props} className={inputClass} value={reason} onChange={(e) => setReason(e.target.value)} required minLength={3} autoFocus />}
      </Field>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" disabled={forget.isPending}>Forget broker {broker.nodeId}</Button>
        <Button type="button" variant="secondary" onClick={onDone}>Cancel</Button>
      </div>
      {forget.isError && !forget.error.fields?.reason && <ErrorAlert message={forget.error.message} />}
    </form>
  );
}

/** Every cluster's recent broker outages, newest first: when each began and ended (or that it lasts). */
function BrokerOutages({ clusters }: { clusters: ClusterInfo[] }) {
  const outages = clusters
    .flatMap((c) => c.brokerOutages.map((o) => ({ ...o, environment: c.environment })))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  if (outages.length === 0) return null;
  return (
    <Card title="Broker outages">
      <p className="mb-3 text-sm text-slate-600">
        A broker is down while the cluster&apos;s metadata no longer lists it (stopped, crashed, or fenced by the controller); its partitions are led by other brokers or are offline meanwhile. The worker checks at
        every observation cycle and tells the platform admins when one goes and when it is back.
      </p>
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" data-testid="broker-outages">
          <caption className="sr-only">Recent broker outages</caption>
          <thead className="text-xs uppercase text-slate-500">
            <tr>
              <th scope="col" className="py-2 pr-4">Environment</th>
              <th scope="col" className="py-2 pr-4">Broker</th>
              <th scope="col" className="py-2 pr-4">Down from</th>
              <th scope="col" className="py-2 pr-4">Back at</th>
              <th scope="col" className="py-2">Lasted</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {outages.map((o) => (
              <tr key={`${o.environment}-${o.nodeId}-${o.startedAt}`} data-testid="broker-outage">
                <td className="py-2 pr-4 font-mono text-xs">{o.environment}</td>
                <td className="py-2 pr-4 text-xs">
                  {o.nodeId} <span className="font-mono">{o.address}</span>
                </td>
                <td className="py-2 pr-4 text-xs">{formatDateTime(o.startedAt)}</td>
                <td className="py-2 pr-4 text-xs">
                  {o.forgottenAt ? <>forgotten (decommissioned) {formatDateTime(o.forgottenAt)}</> : o.endedAt ? formatDateTime(o.endedAt) : <Badge value="FAILED" label="still down" />}
                </td>
                <td className="py-2 text-xs">{o.endedAt && !o.forgottenAt ? age(o.startedAt, Date.parse(o.endedAt)) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

const EMPTY: ClusterFormFields & { environment: string } = { environment: "", bootstrap: "", securityProtocol: "SASL_SSL", saslMechanism: "scram-sha-512", adminUser: "", adminPassword: "", maxPartitions: "", minRetentionDays: "" };

function RegisterCluster() {
  const register = useAdminMutation();
  const [form, setForm] = useState(EMPTY);
  const sasl = usesSasl(form);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = {
      environment: form.environment,
      bootstrap: form.bootstrap,
      securityProtocol: form.securityProtocol,
      saslMechanism: sasl ? form.saslMechanism : "none",
      ...(sasl ? { adminUser: form.adminUser, adminPassword: form.adminPassword } : {}),
      ...(form.maxPartitions ? { maxPartitions: Number(form.maxPartitions) } : {}),
      ...(form.minRetentionDays ? { minRetentionMs: minRetentionMsOf(form) } : {}),
    };
    // The password leaves the form state as soon as it is sent: it is never shown again.
    register.mutate({ method: "POST", path: "/api/v1/clusters", body }, { onSuccess: () => setForm(EMPTY), onSettled: () => setForm((f) => ({ ...f, adminPassword: "" })) });
  }
  const errors = register.error?.fields ?? {};
  const set = (key: keyof typeof EMPTY) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <Card title="Register a cluster">
      <form onSubmit={submit} className="space-y-3" aria-label="Register a cluster">
        <div className="grid gap-3 sm:grid-cols-2">
          <Field id="cluster-environment" label="Environment name" hint="e.g. prod; lower-case, unique." errors={errors.environment}>
            {(p) => <input {...p} className={inputClass} value={form.environment} onChange={set("environment")} required autoComplete="off" />}
          </Field>
          <ClusterFields
            idPrefix="cluster"
            form={form}
            set={set}
            errors={errors}
            hints={{ adminUser: "The principal the worker signs in with (needs Kafka admin rights).", passwordLabel: "Admin password", password: "Stored encrypted; never shown again.", maxPartitions: "Stricter than the global policy for this environment." }}
          />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={register.isPending}>Register cluster</Button>
          {register.isError && Object.keys(errors).length === 0 && <ErrorAlert message={register.error.message} />}
        </div>
      </form>
    </Card>
  );
}
