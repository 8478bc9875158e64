import { Link } from "@/components/link";
import { cx } from "@/components/ui";

const TABS = [
  { href: "/admin/domains", label: "Domains" },
  { href: "/admin/users", label: "Users & roles" },
  { href: "/admin/sso", label: "Single sign-on" },
  { href: "/admin/principals", label: "Reserved principals" },
  { href: "/admin/clusters", label: "Clusters" },
] as const;

export type AdminHref = (typeof TABS)[number]["href"];

/** The admin area's sections; `current` is the active one. */
export function AdminTabs({ current }: { current: AdminHref }) {
  return (
    <nav aria-label="Admin sections" className="mb-6 border-b border-slate-200">
      <ul className="-mb-px flex flex-wrap gap-1">
        {TABS.map((t) => (
          <li key={t.href}>
            <Link
              href={t.href}
              aria-current={t.href === current ? "page" : undefined}
              className={cx(
                "inline-block border-b-2 px-3 py-2 text-sm font-medium",
                t.href === current ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-800",
              )}
            >
              {t.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
