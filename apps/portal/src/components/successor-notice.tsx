"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { SubscriptionSuccessor, SuccessorNotice } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useCarryOverSubscription } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { Link } from "./link";
import { Badge, Button, Card, ErrorAlert } from "./ui";

/**
 * A subscription to a deprecated product: when it sunsets, which major version
 * replaces it, and — once that version accepts subscriptions — one click that
 * requests the same access on it (same service account, same purpose).
 */
function Notice({ notice, canRequest, compact }: { notice: SuccessorNotice; canRequest: boolean; compact?: boolean }) {
  const carry = useCarryOverSubscription(notice.subscriptionId);
  const next = notice.successor;
  return (
    <div className="space-y-2 rounded-md bg-amber-50 p-3 text-sm text-amber-950 ring-1 ring-amber-200" data-testid="successor-notice">
      <p>
        {compact && <span className="font-mono text-xs">User:{notice.serviceAccount} · </span>}
        <Link href={`/products/${notice.product.id}`} className="font-medium underline">{notice.product.name}</Link> (<span className="font-mono">{notice.product.topicName}</span>) is deprecated
        {notice.product.sunsetAt ? <>, sunset <strong>{formatDateTime(notice.product.sunsetAt)}</strong></> : null}.
        {next ? (
          <> It is replaced by major version v{next.majorVersion}, <Link href={`/products/${next.id}`} className="font-mono underline">{next.topicName}</Link>.</>
        ) : (
          " No newer version is published yet."
        )}
      </p>
      {next && notice.carriedOver ? (
        <p className="flex flex-wrap items-center gap-2" data-testid="carried-over">
          Access on v{next.majorVersion} requested: <Badge value={notice.carriedOver.status} />
          <Link href={`/subscriptions/${notice.carriedOver.subscriptionId}`} className="underline">Open that subscription</Link>
        </p>
      ) : next && next.subscribable && canRequest ? (
        <div className="space-y-2">
          <Button disabled={carry.isPending} onClick={() => carry.mutate()} aria-label={`Request the same access on v${next.majorVersion} for ${notice.serviceAccount}`}>
            {carry.isPending ? "Requesting…" : `Request the same access on v${next.majorVersion}`}
          </Button>
          <p className="text-xs text-amber-900">Same service account (User:{notice.serviceAccount}) and purpose; the owner or governance approves it as any request.</p>
          {carry.isError && <ErrorAlert message={carry.error.message} />}
        </div>
      ) : next && !next.subscribable ? (
        <p className="text-xs">v{next.majorVersion} is {next.status.toLowerCase().replace(/_/g, " ")}; you can request the same access once it is approved.</p>
      ) : null}
    </div>
  );
}

/** On a subscription's page. */
export function SubscriptionSuccessorNotice({ subscriptionId, initial }: { subscriptionId: string; initial: SubscriptionSuccessor }) {
  const { data } = useQuery({
    queryKey: queryKeys.subscriptions.successor(subscriptionId),
    queryFn: ({ signal }) => api<SubscriptionSuccessor>(`/api/v1/subscriptions/${subscriptionId}/successor`, { signal }),
    initialData: initial,
  });
  if (!data) return null;
  return <Notice notice={data} canRequest={data.canRequest} />;
}

/** On My domain: every subscription of the actor's domains to a deprecated product. */
export function SupersededSubscriptions() {
  const notices = useQuery({
    queryKey: queryKeys.subscriptions.superseded(),
    queryFn: ({ signal }) => api<SuccessorNotice[]>("/api/v1/my-domains/superseded", { signal }),
  });
  if (!notices.data || notices.data.length === 0) return null;
  return (
    <Card title={`Deprecated products you read (${notices.data.length})`}>
      <div className="space-y-3">
        {notices.data.map((n) => (
          <Notice key={n.subscriptionId} notice={n} canRequest compact />
        ))}
      </div>
    </Card>
  );
}
