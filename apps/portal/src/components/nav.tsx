"use client";

import { usePathname } from "next/navigation";
import { useState } from "react";
import type { Theme } from "@/lib/theme";
import { useActor, usePermissions } from "./actor-context";
import { Link } from "./link";
import { NotificationBell } from "./notification-bell";
import { cx } from "./ui";
import { UserMenu } from "./user-menu";

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

  /*
   * Navigation first, then the bell and the user menu at the end (name, role,
   * theme, sign out), as consoles lay it out. On a phone the links fold under
   * "Menu"; the bell and the user menu stay in the bar.
   */
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:flex-nowrap sm:px-6">
        <Link href="/" className="flex shrink-0 items-center gap-2 font-semibold text-slate-900">
          <span aria-hidden="true" className="grid h-7 w-7 place-items-center rounded-md bg-indigo-600 text-sm text-white">κ</span>
          Kappa Mesh
        </Link>
        <nav id="main-nav" aria-label="Main" className={cx("order-last w-full sm:order-none sm:block sm:w-auto sm:min-w-0 sm:flex-1", open ? "block" : "hidden")}>
          <ul className="flex flex-col gap-1 sm:flex-row sm:flex-wrap sm:gap-x-1 sm:gap-y-1">
            {links.map((l) => (
              <li key={l.href}>
                <Link
                  href={l.href}
                  aria-current={active(l.href) ? "page" : undefined}
                  className={cx(
                    "block whitespace-nowrap rounded-md px-2.5 py-1.5 text-sm font-medium",
                    active(l.href) ? "bg-indigo-50 text-indigo-700" : "text-slate-700 hover:bg-slate-100",
                  )}
                >
                  {l.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="ml-auto flex shrink-0 items-center gap-2 sm:ml-0">
          <NotificationBell />
          <UserMenu theme={theme} />
          <button
            type="button"
            className="rounded-md px-2 py-1.5 text-sm ring-1 ring-slate-300 sm:hidden"
            aria-expanded={open}
            aria-controls="main-nav"
            onClick={() => setOpen((v) => !v)}
          >
            Menu
          </button>
        </div>
      </div>
    </header>
  );
}
