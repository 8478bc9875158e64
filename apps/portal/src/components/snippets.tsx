"use client";

import { useId, useState, type KeyboardEvent } from "react";
import { CopyButton } from "./credentials";
import { cx } from "./ui";

/** Tabs of copy-paste code (JavaScript, Java, Python, kcat), keyboard-operable as the WAI-ARIA tabs pattern: arrows move between tabs. */
export function SnippetTabs({ tabs, label }: { tabs: { id: string; label: string; code: string }[]; label: string }) {
  const [active, setActive] = useState(tabs[0]?.id ?? "");
  const [copied, setCopied] = useState(false);
  const base = useId();
  const current = tabs.find((t) => t.id === active) ?? tabs[0];
  const onKey = (e: KeyboardEvent<HTMLButtonElement>, index: number) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const next = tabs[(index + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    if (!next) return;
    setActive(next.id);
    setCopied(false);
    document.getElementById(`${base}-tab-${next.id}`)?.focus();
  };
  if (!current) return null;
  return (
    <div className="space-y-3">
      <div role="tablist" aria-label={label} className="flex gap-1">
        {tabs.map((t, i) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={t.id === current.id}
            aria-controls={`${base}-panel`}
            tabIndex={t.id === current.id ? 0 : -1}
            onKeyDown={(e) => onKey(e, i)}
            onClick={() => {
              setActive(t.id);
              setCopied(false);
            }}
            className={cx("rounded-md px-3 py-1.5 text-sm font-medium", t.id === current.id ? "bg-indigo-50 text-indigo-700" : "text-slate-700 hover:bg-slate-100")}
          >
            {t.label}
          </button>
        ))}
      </div>
      <pre id={`${base}-panel`} role="tabpanel" aria-labelledby={`${base}-tab-${current.id}`} tabIndex={0} className="overflow-auto rounded-md bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100" data-testid="snippet">
        {current.code}
      </pre>
      <div className="flex items-center gap-3">
        <CopyButton text={current.code} onCopied={() => setCopied(true)}>Copy snippet</CopyButton>
        <span role="status" aria-live="polite" className="text-xs text-emerald-700">{copied ? "Copied." : ""}</span>
      </div>
    </div>
  );
}
