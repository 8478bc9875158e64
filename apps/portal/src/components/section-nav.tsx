"use client";

import { useEffect, useState } from "react";
import { cx } from "./ui";

export interface PageSection {
  id: string;
  label: string;
}

/**
 * An in-page navigation for a long page: one link per section (`#id`, so
 * each section has a deep link), kept at the top while scrolling, with the
 * section being read marked as the current location. Opening the page at
 * `#id` scrolls to that section (the browser does; this only brings it back
 * into view once the page has hydrated, should something above have grown).
 */
export function SectionNav({ sections, label }: { sections: PageSection[]; label: string }) {
  const [current, setCurrent] = useState<string | null>(null);
  useEffect(() => {
    const elements = sections.map((s) => document.getElementById(s.id)).filter((e): e is HTMLElement => e !== null);
    const visible = new Map<string, boolean>();
    // The current section is the first one whose top part is on screen, below the sticky bar.
    const observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) visible.set(e.target.id, e.isIntersecting);
        const first = sections.find((s) => visible.get(s.id));
        if (first) setCurrent(first.id);
      },
      { rootMargin: "-64px 0px -55% 0px" },
    );
    for (const e of elements) observer.observe(e);
    const hash = decodeURIComponent(window.location.hash.slice(1));
    if (sections.some((s) => s.id === hash)) document.getElementById(hash)?.scrollIntoView({ block: "start" });
    return () => observer.disconnect();
  }, [sections]);
  return (
    <nav aria-label={label} className="sticky top-0 z-30 -mx-4 border-b border-slate-200 bg-white px-4 sm:-mx-6 sm:px-6" data-testid="section-nav">
      <ul className="-mb-px flex gap-1 overflow-x-auto">
        {sections.map((s) => (
          <li key={s.id} className="shrink-0">
            <a
              href={`#${s.id}`}
              aria-current={current === s.id ? "location" : undefined}
              onClick={() => setCurrent(s.id)}
              className={cx(
                "block whitespace-nowrap border-b-2 px-3 py-2.5 text-sm font-medium",
                current === s.id ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900",
              )}
            >
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
