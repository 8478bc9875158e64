"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api } from "@/lib/api-client";
import type { ProductRetirement } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useProductAction } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { ReasonAction } from "./reason-form";
import { Until } from "./relative-time";
import { Badge, Card, ErrorAlert, Loading } from "./ui";

/** Re-renders every 30 s so the countdown moves without a reload. */
function useNow(stepMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), stepMs);
    return () => clearInterval(t);
  }, [stepMs]);
  return now;
}

/** A deprecated product's countdown to its sunset (and early retirement), or what the retirement removed. */
export function RetirementCard({ productId, status }: { productId: string; status: string }) {
  const now = useNow();
  const action = useProductAction(productId);
  const info = useQuery({
    queryKey: queryKeys.products.retirement(productId),
    queryFn: ({ signal }) => api<ProductRetirement>(`/api/v1/products/${productId}/retirement`, { signal }),
    // While the worker removes grants, watch it finish.
    refetchInterval: (q) => (q.state.data?.retirement?.task && q.state.data.retirement.task.status !== "DONE" ? 3_000 : 60_000),
  });
  if (info.isPending) return <Card title="Retirement"><Loading /></Card>;
  if (info.isError) return <Card title="Retirement"><ErrorAlert message={info.error.message} /></Card>;
  const r = info.data;
  if (status === "DEPRECATED" || r.status === "DEPRECATED") {
    return (
      <Card title="Retirement" actions={<Badge value="DEPRECATED" />}>
        <div className="space-y-3 text-sm" data-testid="retirement">
          {r.sunsetAt ? (
            <p className="text-lg font-semibold" data-testid="sunset-countdown">
              Sunset <Until iso={r.sunsetAt} now={now} /> <span className="text-sm font-normal text-slate-600">({formatDateTime(r.sunsetAt)})</span>
            </p>
          ) : (
            <p>No sunset date set.</p>
          )}
          <p className="text-slate-700">
            At the sunset the worker retires it: {r.activeSubscriptions === 0 ? "no subscription is active" : `the ${r.activeSubscriptions} active subscription${r.activeSubscriptions === 1 ? " is" : "s are"} revoked`},
            every grant on <span className="font-mono">{r.topic}</span> (producer and subscribers) is removed, and the topic is kept or deleted as the platform&apos;s policy says.
          </p>
          {r.encryptionKeys > 0 && (
            <p className="font-medium text-red-800" data-testid="retirement-shredding">
              Retiring also destroys the product&apos;s {r.encryptionKeys === 1 ? "encryption key" : `${r.encryptionKeys} encryption keys`}: the encrypted PII fields of the records left in the log and the remote
              tier can never be decrypted again, by anyone. This cannot be undone.
            </p>
          )}
          {r.canRetireEarly ? (
            <ReasonAction label="Retire now…" confirmLabel="Retire product" pending={action.isPending} error={action.error} onConfirm={(reason) => action.mutate({ kind: "retire", reason })} />
          ) : r.activeSubscriptions > 0 ? (
            <p className="text-xs text-slate-500">Owners can retire early once no subscription is active.</p>
          ) : null}
        </div>
      </Card>
    );
  }
  const done = r.retirement;
  if (!done) return null;
  const acls = done.removed.filter((x) => x.kind === "acl.deleted");
  return (
    <Card title="Retired" actions={<Badge value="RETIRED" />}>
      <div className="space-y-3 text-sm" data-testid="retirement">
        <p>
          Retired {r.retiredAt ? formatDateTime(r.retiredAt) : ""} — {done.trigger === "sunset" ? "at its sunset" : `early by ${done.by ?? "its owners"}${done.reason ? `: ${done.reason}` : ""}`}.
        </p>
        {done.task && done.task.status !== "DONE" && (
          <p className="text-amber-800" role="status">The worker is removing access on the cluster ({done.task.status.toLowerCase()}){done.task.lastError ? `: ${done.task.lastError}` : ""}.</p>
        )}
        <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">What was removed</h3>
        <ul className="list-disc space-y-1 pl-5" data-testid="retirement-removed">
          <li>{done.revokedPrincipals.length === 0 ? "No subscription was active." : `Subscriptions revoked: ${done.revokedPrincipals.join(", ")}`}</li>
          <li>{acls.length === 0 ? (done.task?.status === "DONE" ? "No ACL was left to remove." : "ACLs: being removed…") : `${acls.length} ACL${acls.length === 1 ? "" : "s"} removed: ${acls.map((a) => `${a.resource.replace(/^acl:/, "")} ${a.acl ?? ""}`.trim()).join("; ")}`}</li>
          {done.keysDestroyed > 0 && <li>{`Encryption keys destroyed: ${done.keysDestroyed} (the encrypted fields left in the log can no longer be decrypted; irreversible).`}</li>}
          <li>{done.topicDeleted ? `Topic ${r.topic} deleted.` : done.task?.status === "DONE" ? `Topic ${r.topic} kept (no grants: nobody can read or write it).` : "Topic: pending."}</li>
        </ul>
      </div>
    </Card>
  );
}
