"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, ErrorAlert, Field, inputClass } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

/**
 * A subscription's optional end of access. Everyone who sees the subscription
 * sees it; the product's owners and governance set, move or clear it
 * (PUT /api/v1/subscriptions/:id/expiry) — the recertification sweep revokes
 * the access when the day has passed.
 */
export function SubscriptionExpiry({ subscriptionId, expiresAt, certifiedAt, canSet, granted }: { subscriptionId: string; expiresAt: string | null; certifiedAt: string | null; canSet: boolean; granted: boolean }) {
  const client = useQueryClient();
  const [day, setDay] = useState(expiresAt ? expiresAt.slice(0, 10) : "");
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const save = useMutation<unknown, ApiError, { expiresAt: string | null }>({
    mutationFn: (body) => api(`/api/v1/subscriptions/${subscriptionId}/expiry`, { method: "PUT", body }),
    onSuccess: async () => {
      setErrors({});
      await Promise.all([client.invalidateQueries({ queryKey: queryKeys.subscriptions.detail(subscriptionId) }), client.invalidateQueries({ queryKey: queryKeys.audit.all })]);
    },
    onError: (error) => setErrors(error.fields),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate({ expiresAt: day ? `${day}T23:59:59.000Z` : null });
  }
  return (
    <div className="space-y-3 text-sm" data-testid="subscription-expiry">
      <p>
        {expiresAt ? (
          <>Access ends <strong>{formatDateTime(expiresAt)}</strong>; the recertification sweep revokes it then.</>
        ) : (
          "No end date: access lasts until it is revoked."
        )}{" "}
        {certifiedAt ? <>Last recertified {formatDateTime(certifiedAt)}.</> : null}
      </p>
      {canSet && granted && (
        <form onSubmit={submit} className="space-y-2" noValidate>
          <Field id="subscription-expiry-day" label="End of access" errors={errors.expiresAt} hint="Access is revoked at the end of this day (UTC).">
            {(a) => <input {...a} type="date" value={day} onChange={(e) => setDay(e.target.value)} className={inputClass} />}
          </Field>
          <ErrorAlert message={save.isError && !save.error.fields.expiresAt ? save.error.message : null} />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" variant="secondary" disabled={save.isPending || !day}>
              {save.isPending ? "Saving…" : "Set end date"}
            </Button>
            {expiresAt && (
              <Button type="button" variant="secondary" disabled={save.isPending} onClick={() => { setDay(""); save.mutate({ expiresAt: null }); }}>
                Remove end date
              </Button>
            )}
          </div>
        </form>
      )}
    </div>
  );
}
