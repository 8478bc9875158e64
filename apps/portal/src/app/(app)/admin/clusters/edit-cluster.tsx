"use client";

import { useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert } from "@/components/ui";
import type { ClusterInfo } from "@/lib/environments";
import { useAdminMutation } from "@/lib/mutations";
import { ClusterFields, minRetentionMsOf, retentionDaysOf, usesSasl, type ClusterFormFields } from "./cluster-fields";

/**
 * Editing a registered cluster (PATCH /api/v1/clusters/{id}): everything but
 * its environment name. The stored password is never shown: an empty password
 * field keeps it, a new one replaces it. Empty bounds remove them.
 */
export function EditCluster({ cluster, onDone }: { cluster: ClusterInfo; onDone: () => void }) {
  const update = useAdminMutation();
  const [form, setForm] = useState<ClusterFormFields>({
    bootstrap: cluster.bootstrap,
    securityProtocol: cluster.securityProtocol,
    saslMechanism: cluster.saslMechanism === "none" ? "scram-sha-512" : cluster.saslMechanism,
    adminUser: cluster.adminUser ?? "",
    adminPassword: "",
    maxPartitions: cluster.maxPartitions === null ? "" : String(cluster.maxPartitions),
    minRetentionDays: retentionDaysOf(cluster.minRetentionMs),
  });
  const sasl = usesSasl(form);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = {
      bootstrap: form.bootstrap,
      securityProtocol: form.securityProtocol,
      saslMechanism: sasl ? form.saslMechanism : "none",
      ...(sasl ? { adminUser: form.adminUser, ...(form.adminPassword ? { adminPassword: form.adminPassword } : {}) } : {}),
      maxPartitions: form.maxPartitions ? Number(form.maxPartitions) : null,
      minRetentionMs: minRetentionMsOf(form),
    };
    // As at registration: the password leaves the form state once sent.
    update.mutate({ method: "PATCH", path: `/api/v1/clusters/${cluster.id}`, body }, { onSuccess: onDone, onSettled: () => setForm((f) => ({ ...f, adminPassword: "" })) });
  }
  const errors = update.error?.fields ?? {};
  const set = (key: keyof ClusterFormFields) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <Card title={`Edit ${cluster.environment}`}>
      <form onSubmit={submit} className="space-y-3" aria-label={`Edit ${cluster.environment}`}>
        <div className="grid gap-3 sm:grid-cols-2">
          <ClusterFields
            idPrefix="edit-cluster"
            form={form}
            set={set}
            errors={errors}
            hints={{ passwordLabel: "New admin password", password: cluster.hasPassword ? "Leave empty to keep the stored one (never shown) — required again when the bootstrap servers, security protocol or SASL mechanism change." : "No password is stored yet.", maxPartitions: "Empty: the global policy only." }}
          />
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
