"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "@/components/link";
import { Ago } from "@/components/relative-time";
import { Button, EmptyState, ErrorAlert, Loading, PageHeader, cx } from "@/components/ui";
import { api, toQueryString } from "@/lib/api-client";
import type { NotificationPage } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useMarkNotificationsRead } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

/** Every notification of the signed-in user, newest first, paged; filter to unread; mark one or all read. */
export function NotificationCentre() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const markRead = useMarkNotificationsRead();
  const pages = useInfiniteQuery({
    queryKey: queryKeys.notifications.list({ unread: unreadOnly, limit: 30 }),
    queryFn: ({ pageParam, signal }) =>
      api<NotificationPage>(`/api/v1/notifications${toQueryString({ limit: 30, unread: unreadOnly ? "true" : undefined, before: pageParam ?? undefined })}`, { signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: 15_000,
  });
  const items = pages.data?.pages.flatMap((p) => p.notifications) ?? [];
  const unread = pages.data?.pages[0]?.unread ?? 0;
  return (
    <div className="space-y-4">
      <PageHeader
        title="Notifications"
        description={`${unread} unread · reviews, decisions, schema versions, alerts and retirements that concern you. Your domains' webhooks and e-mail get the same events.`}
        actions={
          <div className="flex gap-2">
            <Button variant="secondary" aria-pressed={unreadOnly} onClick={() => setUnreadOnly((v) => !v)}>
              {unreadOnly ? "Show all" : "Unread only"}
            </Button>
            <Button disabled={unread === 0 || markRead.isPending} onClick={() => markRead.mutate({ all: true })}>
              Mark all read
            </Button>
          </div>
        }
      />
      <ErrorAlert message={markRead.error?.message ?? (pages.isError ? pages.error.message : null)} />
      {pages.isPending ? (
        <Loading />
      ) : items.length === 0 ? (
        <EmptyState title={unreadOnly ? "Nothing unread" : "No notifications yet"} />
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg bg-white ring-1 ring-slate-200" data-testid="notification-centre">
          {items.map((n) => (
            <li key={n.id} className={cx("flex flex-wrap items-start justify-between gap-3 px-4 py-3", n.readAt === null && "bg-indigo-50/50")}>
              <div className="min-w-0">
                <p className="text-sm font-medium text-slate-900">
                  {n.readAt === null && <span className="mr-2 inline-block h-2 w-2 rounded-full bg-indigo-600" aria-label="Unread" role="img" />}
                  {n.link ? <Link href={n.link} className="hover:underline">{n.title}</Link> : n.title}
                </p>
                {n.body && <p className="mt-0.5 text-sm text-slate-700">{n.body}</p>}
                <p className="mt-0.5 text-xs text-slate-500">
                  <Ago iso={n.createdAt} title={formatDateTime(n.createdAt)} /> · {n.kind}
                </p>
              </div>
              {n.readAt === null && (
                <Button variant="ghost" className="text-xs" onClick={() => markRead.mutate({ ids: [n.id] })} aria-label={`Mark "${n.title}" read`}>
                  Mark read
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {pages.hasNextPage && (
        <Button variant="secondary" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
          {pages.isFetchingNextPage ? "Loading…" : "Older notifications"}
        </Button>
      )}
    </div>
  );
}
