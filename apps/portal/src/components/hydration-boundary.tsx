import { Suspense, type ReactNode } from "react";

/**
 * A Suspense boundary around server-rendered content that never suspends.
 * React hydrates each such boundary as separate work after the shell, yielding
 * to the browser in between, so a long client page (the product page) does not
 * hydrate as one long task — which is what Lighthouse's total blocking time
 * measures. Nothing changes visibly: the server's HTML is there all along.
 */
export function HydrationBoundary({ children }: { children: ReactNode }) {
  return <Suspense>{children}</Suspense>;
}
