"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "@/components/link";
import { Age } from "@/components/relative-time";
import { Badge, Button, Card, EmptyState, ErrorAlert, inputClass, Loading } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { RecertificationList } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";

type Item = RecertificationList["items"][number];

export function RecertificationView() {
  const list = useQuery({ queryKey: ["recertification"], queryFn: ({ signal }) => api<RecertificationList>("/api/v1/recertification", { signal }) });
  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorAlert message={list.error.message} />;
  const { schedule, items } = list.data;
  return (
    <div className="space-y-4">
      <Card>
        <p className="text-sm text-slate-700" data-testid="recert-schedule">
          Every {schedule.everyDays.PUBLIC} days for PUBLIC, {schedule.everyDays.INTERNAL} for INTERNAL, {schedule.everyDays.CONFIDENTIAL} for CONFIDENTIAL and {schedule.everyDays.RESTRICTED} for RESTRICTED products;
          a grant with no observed consumption for {schedule.unusedDays} days counts as unused.{" "}
          {schedule.autoRevoke ? `Overdue access is revoked ${schedule.graceDays} days after its due date.` : "Overdue access is flagged, not revoked automatically."} Expired subscriptions are always revoked.
        </p>
      </Card>
      {items.length === 0 ? <EmptyState title="Nothing to recertify">No granted subscriptions on your products.</EmptyState> : (
        <ul className="space-y-3" aria-label="Subscriptions to recertify">{items.map((i) => <Row key={i.id} item={i} />)}</ul>
      )}
    </div>
  );
}

function Row({ item: i }: { item: Item }) {
  const client = useQueryClient();
  const [reason, setReason] = useState("");
  const decide = useMutation<unknown, ApiError, "keep" | "revoke">({
    mutationFn: (decision) => api(`/api/v1/subscriptions/${i.id}/recertify`, { method: "POST", body: { decision, reason } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["recertification"] }),
  });
  return (
    <li className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200" data-testid="recert-item" data-account={i.serviceAccount.name}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-mono">User:{i.serviceAccount.name}</span> ({i.consumingDomain.name}) reads <Link className="font-medium text-indigo-700 hover:underline" href={`/products/${i.product.id}`}>{i.product.name}</Link>
        {i.unused && <Badge value="REQUESTED" label="unused" />}
        {i.overdue ? <Badge value="FAILED" label="overdue" /> : <Badge value="ACTIVE" label="current" />}
        {i.expiresAt && <Badge value="DEPRECATED" label={`expires ${formatDateTime(i.expiresAt)}`} />}
      </div>
      <p className="mt-1 text-xs text-slate-600">
        Due {formatDateTime(i.dueAt)} · last certified {i.certifiedAt ? <><Age iso={i.certifiedAt} /> ago</> : "never"} · last used {i.lastUsedAt ? <><Age iso={i.lastUsedAt} /> ago</> : "not observed"} · “{i.purpose}”
      </p>
      <div className="mt-2 flex flex-wrap items-end gap-2">
        <div className="min-w-64 flex-1">
          <label htmlFor={`reason-${i.id}`} className="block text-xs font-medium">Reason</label>
          <input id={`reason-${i.id}`} className={`${inputClass} mt-1`} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="why keep or revoke" />
        </div>
        <Button disabled={decide.isPending} onClick={() => decide.mutate("keep")} aria-label={`Keep access of ${i.serviceAccount.name} to ${i.product.name}`}>Keep</Button>
        <Button variant="danger" disabled={decide.isPending} onClick={() => decide.mutate("revoke")} aria-label={`Revoke access of ${i.serviceAccount.name} to ${i.product.name}`}>Revoke</Button>
      </div>
      {decide.isError && <div className="mt-2"><ErrorAlert message={decide.error.fields?.reason?.join(" ") ?? decide.error.message} /></div>}
    </li>
  );
}
