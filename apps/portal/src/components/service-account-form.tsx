"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, type ApiError } from "@/lib/api-client";
import { queryKeys } from "@/lib/query-keys";
import { Button, ErrorAlert, Field, inputClass } from "./ui";

/** Creates a consumer service account (Kafka principal User:<name>) for a domain. */
export function ServiceAccountForm({ domainId, onCreated, compact = false }: { domainId: string; onCreated?: (account: { id: string; name: string }) => void; compact?: boolean }) {
  const client = useQueryClient();
  const prefix = useId();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useMutation<{ id: string; name: string }, ApiError, { domainId: string; name: string; description: string }>({
    mutationFn: (body) => api("/api/v1/service-accounts", { method: "POST", body }),
    onSuccess: async (account) => {
      setName("");
      setDescription("");
      await Promise.all([client.invalidateQueries({ queryKey: queryKeys.serviceAccounts }), client.invalidateQueries({ queryKey: queryKeys.myDomains })]);
      onCreated?.(account);
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate({ domainId, name: name.trim(), description: description.trim() });
  }
  const fields = create.error?.fields ?? {};
  return (
    <form onSubmit={submit} className="space-y-3" noValidate>
      <div className={compact ? "grid gap-3" : "grid gap-3 sm:grid-cols-2"}>
        <Field id={`${prefix}-name`} label="Account name" errors={fields.name} hint="Lower-case, e.g. payments-reconciliation. Becomes the Kafka user.">
          {(a) => <input {...a} value={name} onChange={(e) => setName(e.target.value)} className={inputClass} />}
        </Field>
        <Field id={`${prefix}-description`} label="Description" errors={fields.description}>
          {(a) => <input {...a} value={description} onChange={(e) => setDescription(e.target.value)} className={inputClass} />}
        </Field>
      </div>
      <ErrorAlert message={create.isError && !create.error.fields?.name ? create.error.message : null} />
      <Button type="submit" variant="secondary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create service account"}
      </Button>
    </form>
  );
}
