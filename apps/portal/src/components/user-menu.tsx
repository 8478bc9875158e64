"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { Theme } from "@/lib/theme";
import { useActor } from "./actor-context";
import { ThemeToggle } from "./theme-toggle";

export function roleLabel(me: ReturnType<typeof useActor>): string {
  if (me.globalRole === "ADMIN") return "Platform admin";
  if (me.globalRole === "GOVERNANCE") return "Governance reviewer";
  const owned = me.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainSlug);
  if (owned.length > 0) return `Owner · ${owned.join(", ")}`;
  const member = me.memberships.map((m) => m.domainSlug);
  return member.length > 0 ? `Member · ${member.join(", ")}` : "Reader";
}

/**
 * The user menu at the end of the navigation bar, as consoles have it: a
 * button with the person's name, opening a panel with who they
 * are, their role, the theme and Sign out. The panel is right-aligned under
 * the button and never wider than the viewport less a margin, so on a phone
 * nothing in it is cut off. Escape or a click elsewhere closes it.
 */
export function UserMenu({ theme }: { theme: Theme }) {
  const me = useActor();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const role = roleLabel(me);
  return (
    <div ref={root} className="relative">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        data-testid="user-menu-button"
        onClick={() => setOpen((v) => !v)}
        className="flex items-center gap-2 rounded-md py-1 pl-1 pr-2 text-sm text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
      >
        {/* The name is the button's visible text (and its accessible name, after "Account menu:"); the icon is decoration. */}
        <span aria-hidden="true" className="grid h-7 w-7 place-items-center rounded-full bg-indigo-100 text-indigo-800">
          <svg viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
            <path d="M10 10a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm-6 7a6 6 0 0 1 12 0H4Z" />
          </svg>
        </span>
        <span className="sr-only md:hidden">Account menu: {me.name}</span>
        <span className="hidden max-w-40 truncate font-medium md:inline"><span className="sr-only">Account menu: </span>{me.name}</span>
        <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4 text-slate-500" fill="currentColor">
          <path d="M5.2 7.5a.75.75 0 0 1 1.06 0L10 11.2l3.74-3.7a.75.75 0 1 1 1.06 1.06l-4.27 4.24a.75.75 0 0 1-1.06 0L5.2 8.56a.75.75 0 0 1 0-1.06Z" />
        </svg>
      </button>
      {/* Rendered closed too (hidden), so who is signed in is in the page for assistive tech and tests alike. */}
      <div
        id={panelId}
        role="region"
        aria-label="Account"
        className={`${open ? "block" : "hidden"} absolute right-0 z-40 mt-2 w-[min(18rem,calc(100vw-2rem))] rounded-lg bg-white shadow-lg ring-1 ring-slate-200`}
        data-testid="user-menu"
      >
        <div className="border-b border-slate-200 px-3 py-2 text-sm leading-tight" data-testid="current-user">
          <div className="truncate font-medium text-slate-900">{me.name}</div>
          <div className="truncate text-xs text-slate-500">{me.email}</div>
          <div className="mt-1 text-xs text-slate-600">
            <span className="sr-only">Role: </span>
            <span data-testid="current-role">{role}</span>
          </div>
        </div>
        <div className="border-b border-slate-200 px-3 py-2">
          <ThemeToggle initial={theme} />
        </div>
        <div className="px-3 py-2">
          <button
            type="button"
            // next-auth's client loads on use, not with every page (it was main-thread time during hydration).
            onClick={() => void import("next-auth/react").then(({ signOut }) => signOut({ callbackUrl: "/signin" }))}
            className="w-full rounded-md px-3 py-1.5 text-left text-sm font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
          >
            Sign out
          </button>
        </div>
      </div>
    </div>
  );
}
