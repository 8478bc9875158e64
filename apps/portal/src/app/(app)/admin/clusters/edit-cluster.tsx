"use client";

import { useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, inputClass } from "@/components/ui";
import type { ClusterInfo } from "@/lib/environments";
import { useAdminMutation } from "@/lib/mutations";

const DAY_MS = 86_400_000;

/**
 * Editing a registered cluster (PATCH /api/v1/clusters/{id}): everything but
 * its environment name. The stored password is never shown: an empty password
 * field keeps it, a new one replaces it. Empty bounds remove them.
 */
export function EditCluster({ cluster, onDone }: { cluster: ClusterInfo; onDone: () => void }) {
  const update = useAdminMutation();
  const [form, setForm] = useState({
    bootstrap: cluster.bootstrap,
    securityProtocol: cluster.securityProtocol,
    saslMechanism: cluster.saslMechanism === "none" ? "scram-sha-512" : cluster.saslMechanism,
    adminUser: cluster.adminUser ?? "",
    adminPassword: "",
    maxPartitions: cluster.maxPartitions === null ? "" : String(cluster.maxPartitions),
    minRetentionDays: cluster.minRetentionMs === null ? "" : String(Number(cluster.minRetentionMs) / DAY_MS),
  });
  const sasl = form.securityProtocol.startsWith("SASL_");
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = {
      bootstrap: form.bootstrap,
      securityProtocol: form.securityProtocol,
      saslMechanism: sasl ? form.saslMechanism : "none",
      ...(sasl ? { adminUser: form.adminUser, ...(form.adminPassword ? { adminPassword: form.adminPassword } : {}) } : {}),
      maxPartitions: form.maxPartitions ? Number(form.maxPartitions) : null,
      minRetentionMs: form.minRetentionDays ? Math.round(Number(form.minRetentionDays) * DAY_MS) : null,
    };
    // As at registration: the password leaves the form state once sent.
    update.mutate({ method: "PATCH", path: `/api/v1/clusters/${cluster.id}`, body }, { onSuccess: onDone, onSettled: () => setForm((f) => ({ ...f, adminPassword: "" })) });
  }
  const errors = update.error?.fields ?? {};
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const id = (name: string) => `edit-cluster-${name}`;
  return (
    <Card title={`Edit ${cluster.environment}`}>
      <form onSubmit={submit} className="space-y-3" aria-label={`Edit ${cluster.environment}`}>
        <div className="grid gap-3 sm:grid-cols-2">
          <Field id={id("bootstrap")} label="Bootstrap servers" hint="host:port, comma-separated." errors={errors.bootstrap}>
            {(p) => <input {...p} className={`${inputClass} font-mono`} value={form.bootstrap} onChange={set("bootstrap")} required autoComplete="off" />}
          </Field>
          <Field id={id("protocol")} label="Security protocol" errors={errors.securityProtocol}>
            {(p) => (
              <select {...p} className={inputClass} value={form.securityProtocol} onChange={set("securityProtocol")}>
                {["SASL_SSL", "SASL_PLAINTEXT", "SSL", "PLAINTEXT"].map((v) => <option key={v} value={v}>{v}</option>)}
              </select>
            )}
          </Field>
          {sasl && (
            <Field id={id("mechanism")} label="SASL mechanism" errors={errors.saslMechanism}>
              {(p) => (
                <select {...p} className={inputClass} value={form.saslMechanism} onChange={set("saslMechanism")}>
                  {["scram-sha-512", "scram-sha-256", "plain"].map((v) => <option key={v} value={v}>{v}</option>)}
                </select>
              )}
            </Field>
          )}
          {sasl && (
            <Field id={id("admin-user")} label="Admin user" errors={errors.adminUser}>
              {(p) => <input {...p} className={inputClass} value={form.adminUser} onChange={set("adminUser")} autoComplete="off" />}
            </Field>
          )}
          {sasl && (
            <Field id={id("admin-password")} label="New admin password" hint={cluster.hasPassword ? "Leave empty to keep the stored one (never shown)." : "No password is stored yet."} errors={errors.adminPassword}>
              {(p) => <input {...p} type="password" className={inputClass} value={form.adminPassword} onChange={set("adminPassword")} autoComplete="new-password" />}
            </Field>
          )}
          <Field id={id("max-partitions")} label="Maximum partitions (optional)" hint="Empty: the global policy only." errors={errors.maxPartitions}>
            {(p) => <input {...p} type="number" min={1} inputMode="numeric" className={inputClass} value={form.maxPartitions} onChange={set("maxPartitions")} />}
          </Field>
          <Field id={id("min-retention")} label="Minimum retention in days (optional)" errors={errors.minRetentionMs}>
            {(p) => <input {...p} type="number" min={0} step="any" inputMode="decimal" className={inputClass} value={form.minRetentionDays} onChange={set("minRetentionDays")} />}
          </Field>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={update.isPending}>Save {cluster.environment}</Button>
          <Button type="button" variant="secondary" onClick={onDone}>Cancel</Button>
          {update.isError && Object.keys(errors).length === 0 && <ErrorAlert message={update.error.message} />}
        </div>
      </form>
    </Card>
  );
}
