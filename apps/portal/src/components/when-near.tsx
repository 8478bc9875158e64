"use client";

import { useEffect, useRef, useState, type ReactNode, type RefObject } from "react";
import { usePageIdle } from "./page-idle";
import { Card, Loading } from "./ui";

export { usePageIdle };

/*
 * Deferring below-the-fold work until the page has settled. A page's first
 * seconds decide how it feels (and its Lighthouse blocking time): the panels
 * far down the page, their queries and their 3 s polls, should not compete
 * with hydrating what is on screen.
 */

/** How long after the page is idle a deferred panel loads even if nobody scrolled to it. */
const FALLBACK_MS = 4_000;

/**
 * Whether a block far down the page should load yet: once it comes within
 * `margin` of the viewport (scrolled to, or reached by keyboard, which
 * scrolls), once focus moves into it, and in any case a few seconds after the
 * page is idle — so a screen reader reading without scrolling, a search in
 * the page, or a print still gets the content, only not during the first
 * seconds. Latches: once true it stays true.
 */
export function useNear<T extends HTMLElement>(options: { margin?: string; fallback?: boolean } = {}): { ref: RefObject<T | null>; near: boolean; onFocus: () => void } {
  const { margin = "400px 0px", fallback = true } = options;
  const ref = useRef<T>(null);
  const [near, setNear] = useState(false);
  const idle = usePageIdle(FALLBACK_MS, fallback && !near);
  useEffect(() => {
    const element = ref.current;
    if (near || !element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setNear(true);
          observer.disconnect();
        }
      },
      { rootMargin: margin },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [near, margin]);
  return { ref, near: near || idle, onFocus: () => setNear(true) };
}

/**
 * A panel far down the page: renders `placeholder` (its card with a visible
 * heading, at about its loaded height, so nothing shifts) until it is near
 * the viewport, then `children`, which mount their queries only then. The
 * wrapper is hidden while empty, so a panel that renders nothing leaves no gap.
 */
export function WhenNear({ placeholder, children }: { placeholder: ReactNode; children: ReactNode }) {
  const { ref, near, onFocus } = useNear<HTMLDivElement>();
  return (
    <div ref={ref} onFocusCapture={onFocus} className="empty:hidden">
      {near ? children : placeholder}
    </div>
  );
}

/** A deferred panel's stand-in: its card and heading, and room for its content. */
export function PanelPlaceholder({ title, height }: { title: ReactNode; height: string }) {
  return (
    <Card title={title}>
      <div className={height} aria-busy="true">
        <Loading />
      </div>
    </Card>
  );
}

/**
 * Whether the element is on screen now (not latched, unlike useNear): for
 * work that should run only while someone can see it, such as a live panel's
 * polling.
 */
export function useInView<T extends HTMLElement>(margin = "0px"): { ref: RefObject<T | null>; inView: boolean } {
  const ref = useRef<T>(null);
  const [inView, setInView] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new IntersectionObserver((entries) => setInView(entries.some((e) => e.isIntersecting)), { rootMargin: margin });
    observer.observe(element);
    return () => observer.disconnect();
  }, [margin]);
  return { ref, inView };
}
