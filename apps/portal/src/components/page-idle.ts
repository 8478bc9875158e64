"use client";

import { useEffect, useState } from "react";

/*
 * "The page has settled": loaded, and the main thread idle once. Work that
 * the first screen does not need (polls, below-the-fold panels, the bell's
 * first request, link prefetches) waits for it, so it does not compete with
 * the first paint and hydration. Its own module so that ui.tsx → link.tsx can
 * use it without importing when-near.tsx (which imports ui.tsx).
 */

/** Resolves once the page has loaded and the main thread was idle once (a timeout where there is no requestIdleCallback). */
let pageIdle: Promise<void> | null = null;
function whenPageIdle(): Promise<void> {
  pageIdle ??= new Promise<void>((resolve) => {
    const idle = () => (typeof window.requestIdleCallback === "function" ? window.requestIdleCallback(() => resolve(), { timeout: 2_000 }) : window.setTimeout(resolve, 200));
    if (document.readyState === "complete") idle();
    else window.addEventListener("load", idle, { once: true });
  });
  return pageIdle;
}

/**
 * False until the page has loaded, been idle once and then `delayMs` have
 * passed; then true for good. A poll given `refetchInterval: idle ? ms : false`
 * starts its first interval only then, instead of firing during hydration.
 */
export function usePageIdle(delayMs = 0, enabled = true): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    let timer: number | undefined;
    let live = true;
    void whenPageIdle().then(() => {
      if (live) timer = window.setTimeout(() => setIdle(true), delayMs);
    });
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [delayMs, enabled]);
  return idle;
}
