"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, type ApiError } from "@/lib/api-client";
import { queryKeys } from "@/lib/query-keys";
import { Button, ErrorAlert, Field, inputClass } from "./ui";

/**
 * Creates a consumer service account for a domain. Its Kafka principal is
 * `User:<domain-slug>-<name>`: the form shows the domain's prefix fixed and
 * sends the whole name, which the catalog checks (namespace, reserved names).
 */
export function ServiceAccountForm({ domainId, domainSlug, onCreated, compact = false }: { domainId: string; domainSlug: string; onCreated?: (account: { id: string; name: string }) => void; compact?: boolean }) {
  const client = useQueryClient();
  const prefix = useId();
  const [name, setName] = useState("");
  const namePrefix = `${domainSlug}-`;
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
    create.mutate({ domainId, name: `${namePrefix}${name.trim()}`, description: description.trim() });
  }
  const fields = create.error?.fields ?? {};
  return (
    <form onSubmit={submit} className="space-y-3" noValidate>
      <div className={compact ? "grid gap-3" : "grid gap-3 sm:grid-cols-2"}>
        <Field
          id={`${prefix}-name`}
          label="Account name"
          errors={fields.name}
          hint={`Lower-case letters, digits, "-" or "_"; no dots. The Kafka user becomes ${namePrefix}${name.trim() || "<name>"}.`}
        >
          {(a) => (
            <div className="flex rounded-md shadow-sm">
              <span className="inline-flex items-center rounded-l-md bg-slate-100 px-2 font-mono text-sm text-slate-600 ring-1 ring-inset ring-slate-300" data-testid="account-name-prefix">
                {namePrefix}
              </span>
              <input {...a} value={name} onChange={(e) => setName(e.target.value)} className={`${inputClass} rounded-l-none`} autoComplete="off" spellCheck={false} />
            </div>
          )}
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
