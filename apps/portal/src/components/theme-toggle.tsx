"use client";

import { useState } from "react";
import { THEME_COOKIE, THEMES, type Theme } from "@/lib/theme";

const LABELS: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/**
 * Light, dark or the system's setting. The choice is a cookie, so the server
 * renders the right class on <html> and nothing flashes; no inline script is
 * needed (the CSP allows none).
 */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  const choose = (next: Theme) => {
    setTheme(next);
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    if (next !== "system") root.classList.add(next);
    document.cookie = next === "system" ? `${THEME_COOKIE}=; path=/; max-age=0; samesite=lax` : `${THEME_COOKIE}=${next}; path=/; max-age=31536000; samesite=lax`;
  };
  return (
    <label className="flex items-center gap-1 text-xs text-slate-600">
      <span>Theme</span>
      <select
        value={theme}
        onChange={(e) => choose(e.target.value as Theme)}
        className="rounded-md border-0 bg-white py-1 pl-2 pr-7 text-xs text-slate-800 ring-1 ring-slate-300"
        data-testid="theme-select"
      >
        {THEMES.map((t) => (
          <option key={t} value={t}>
            {LABELS[t]}
          </option>
        ))}
      </select>
    </label>
  );
}
