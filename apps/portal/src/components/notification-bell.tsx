"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { api } from "@/lib/api-client";
import type { NotificationPage } from "@/lib/api-types";
import { useMarkNotificationsRead } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { Link } from "./link";
import { usePageIdle } from "./page-idle";
import { Ago } from "./relative-time";
import { cx } from "./ui";

/** How often the bell asks for news. Alerts are evaluated every few seconds; this is close enough for a person. */
const POLL_MS = 10_000;

/**
 * The bell: unread count as a badge, the latest notifications in a panel,
 * "mark all read", and the way to the full centre. A disclosure (button +
 * region), closed by Escape or a click elsewhere.
 */
export function NotificationBell() {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const markRead = useMarkNotificationsRead();
  // The bell is on every page: its first request waits until the page has
  // loaded and been idle once (or until the panel is opened), so it does not
  // compete with the page's own first paint and hydration. Then it polls.
  const idle = usePageIdle();
  const { data } = useQuery({
    queryKey: queryKeys.notifications.list({ limit: 8 }),
    queryFn: ({ signal }) => api<NotificationPage>("/api/v1/notifications?limit=8", { signal }),
    enabled: idle || open,
    refetchInterval: POLL_MS,
  });
  const unread = data?.unread ?? 0;

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    const onClick = (e: MouseEvent) => {
      if (wrapper.current && !wrapper.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onClick);
    };
  }, [open]);

  return (
    <div className="relative" ref={wrapper}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={unread > 0 ? `Notifications, ${unread} unread` : "Notifications"}
        data-testid="notification-bell"
        onClick={() => setOpen((v) => !v)}
        className="relative grid h-9 w-9 place-items-center rounded-md text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth={1.8}>
          <path d="M6 8a6 6 0 1 1 12 0c0 7 3 8 3 8H3s3-1 3-8" strokeLinejoin="round" />
          <path d="M10.3 20a1.9 1.9 0 0 0 3.4 0" strokeLinecap="round" />
        </svg>
        {unread > 0 && (
          <span data-testid="notification-count" className="absolute -right-1.5 -top-1.5 min-w-5 rounded-full bg-rose-600 px-1 text-center text-xs font-semibold leading-5 text-white">
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      {open && (
        <div id={panelId} role="region" aria-label="Latest notifications" className="absolute right-0 z-40 mt-2 w-[min(24rem,calc(100vw-2rem))] rounded-lg bg-white shadow-lg ring-1 ring-slate-200">
          <div className="flex items-center justify-between border-b border-slate-200 px-3 py-2">
            <span className="text-sm font-semibold">Notifications</span>
            {unread > 0 && (
              <button type="button" className="text-xs font-medium text-indigo-700 hover:underline" onClick={() => markRead.mutate({ all: true })}>
                Mark all read
              </button>
            )}
          </div>
          {data && data.notifications.length === 0 ? (
            <p className="px-3 py-4 text-sm text-slate-600">Nothing yet. Reviews, decisions, alerts and retirements show up here.</p>
          ) : (
            <ul className="max-h-96 divide-y divide-slate-100 overflow-y-auto" data-testid="notification-list">
              {data?.notifications.map((n) => (
                <li key={n.id} className={cx("px-3 py-2", n.readAt === null && "bg-indigo-50/60")}>
                  <Link
                    href={n.link ?? "/notifications"}
                    className="block"
                    onClick={() => {
                      setOpen(false);
                      if (n.readAt === null) markRead.mutate({ ids: [n.id] });
                    }}
                  >
                    <p className="text-sm font-medium text-slate-900">
                      {n.readAt === null && <span className="sr-only">Unread: </span>}
                      {n.title}
                    </p>
                    {n.body && <p className="line-clamp-2 text-xs text-slate-600">{n.body}</p>}
                    <p className="mt-0.5 text-xs text-slate-500"><Ago iso={n.createdAt} /></p>
                  </Link>
                </li>
              ))}
            </ul>
          )}
          <div className="border-t border-slate-200 px-3 py-2 text-right">
            <Link href="/notifications" className="text-sm font-medium text-indigo-700 hover:underline" onClick={() => setOpen(false)}>
              All notifications
            </Link>
          </div>
        </div>
      )}
    </div>
  );
}
