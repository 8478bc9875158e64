"use client";

import { usePathname } from "next/navigation";
import { useState } from "react";
import type { Theme } from "@/lib/theme";
import { useActor, usePermissions } from "./actor-context";
import { Link } from "./link";
import { NotificationBell } from "./notification-bell";
import { ThemeToggle } from "./theme-toggle";
import { cx } from "./ui";

function roleLabel(me: ReturnType<typeof useActor>): string {
  if (me.globalRole === "ADMIN") return "Platform admin";
  if (me.globalRole === "GOVERNANCE") return "Governance reviewer";
  const owned = me.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainSlug);
  if (owned.length > 0) return `Owner · ${owned.join(", ")}`;
  const member = me.memberships.map((m) => m.domainSlug);
  return member.length > 0 ? `Member · ${member.join(", ")}` : "Reader";
}

export function Nav({ theme }: { theme: Theme }) {
  const me = useActor();
  const perms = usePermissions();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const isOwner = me.memberships.some((m) => m.role === "OWNER");
  const links = [
    { href: "/", label: "Catalog", show: true },
    { href: "/my-domain", label: "My domain", show: me.memberships.length > 0 },
    { href: "/review", label: "Review", show: perms.hasGlobal("product:review") || isOwner },
    { href: "/audit", label: "Audit log", show: perms.hasGlobal("audit:read") },
    { href: "/governance", label: "Governance", show: perms.hasGlobal("product:review") || perms.hasGlobal("platform:admin") },
    { href: "/contracts", label: "Contracts", show: isOwner },
    { href: "/tokens", label: "API tokens", show: true },
    { href: "/platform", label: "Platform", show: perms.hasGlobal("platform:admin") },
    { href: "/costs", label: "Costs", show: me.memberships.length > 0 || perms.hasGlobal("platform:admin") },
    { href: "/lineage", label: "Lineage", show: true },
    { href: "/recertification", label: "Recertify", show: perms.hasGlobal("product:review") || isOwner },
    { href: "/cluster", label: "Cluster", show: perms.hasGlobal("platform:admin") || isOwner },
    { href: "/admin", label: "Admin", show: perms.hasGlobal("domain:manage") },
  ].filter((l) => l.show);
  const active = (href: string) => (href === "/" ? pathname === "/" || pathname.startsWith("/products") : pathname.startsWith(href));

  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 font-semibold text-slate-900">
          <span aria-hidden="true" className="grid h-7 w-7 place-items-center rounded-md bg-indigo-600 text-sm text-white">κ</span>
          Kappa Mesh
        </Link>
        <div className="ml-auto sm:order-last">
          <NotificationBell />
        </div>
        <button
          type="button"
          className="rounded-md px-2 py-1 text-sm ring-1 ring-slate-300 sm:hidden"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpen((v) => !v)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={cx("w-full sm:flex sm:w-auto", open ? "block" : "hidden")}>
          <ul className="flex flex-col gap-1 sm:flex-row sm:gap-1">
            {links.map((l) => (
              <li key={l.href}>
                <Link
                  href={l.href}
                  aria-current={active(l.href) ? "page" : undefined}
                  className={cx(
                    "block rounded-md px-3 py-1.5 text-sm font-medium",
                    active(l.href) ? "bg-indigo-50 text-indigo-700" : "text-slate-700 hover:bg-slate-100",
                  )}
                >
                  {l.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className={cx("w-full items-center gap-3 sm:ml-auto sm:flex sm:w-auto", open ? "flex" : "hidden")}>
          <div className="text-right text-sm leading-tight" data-testid="current-user">
            <div className="font-medium text-slate-900">{me.name}</div>
            <div className="text-xs text-slate-500">
              {me.email} · <span data-testid="current-role">{roleLabel(me)}</span>
            </div>
          </div>
          <ThemeToggle initial={theme} />
          <button
            type="button"
            // next-auth's client loads on use, not with every page (it was main-thread time during hydration).
            onClick={() => void import("next-auth/react").then(({ signOut }) => signOut({ callbackUrl: "/signin" }))}
            className="rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
          >
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
