"use client";

import { useEffect, useState } from "react";

/*
 * "The page has settled": loaded, the main thread idle once, and then
 * SETTLE_MS more. Work that the first screen does not need (polls,
 * below-the-fold panels, the bell's first request, link prefetches) waits for
 * it, so it does not compete with the first paint, hydration and the person's
 * first taps. Its own module so that ui.tsx → link.tsx can use it without
 * importing when-near.tsx (which imports ui.tsx).
 *
 * Why the extra SETTLE_MS: the first idle moment comes while the page's first
 * second is still busy (React yields between hydration slices, and the
 * streamed parts of the page are still arriving), and what waited for it — a
 * dozen link prefetches the server renders on the same machine, every Link
 * and the bell rendering again, the answers parsed — then ran inside that
 * second: most of the catalog's and product page's blocking time in
 * Lighthouse's traces. Two seconds later the page is done; prefetched links
 * are still ready long before most clicks, and the bell's count shows 2 s
 * later. (Lighthouse stops watching a page about a second after it is quiet,
 * so this work is no longer in its figures: the work is the same, it only
 * runs after the page's first seconds.)
 */
export const SETTLE_MS = 2_000;

/** Resolves once the page has loaded, the main thread was idle once (a timeout where there is no requestIdleCallback) and SETTLE_MS have passed. */
let pageIdle: Promise<void> | null = null;
function whenPageIdle(): Promise<void> {
  pageIdle ??= new Promise<void>((resolve) => {
    const settled = () => window.setTimeout(resolve, SETTLE_MS);
    const idle = () => (typeof window.requestIdleCallback === "function" ? window.requestIdleCallback(settled, { timeout: 2_000 }) : window.setTimeout(settled, 200));
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
