"use client";

import NextLink from "next/link";
import type { ComponentProps } from "react";
import { usePageIdle } from "./page-idle";

/**
 * next/link, with its prefetching held back until the page has loaded and
 * been idle once. A link in the viewport prefetches its route at once, and
 * each prefetch is one or two requests that the server renders while this
 * page is still hydrating. Both compete for the same CPU as the page's first
 * seconds. Once the page is idle, prefetching works as next/link's
 * (`prefetch` is passed on): next/link restarts its viewport watch when
 * `prefetch` changes. Use this instead of next/link.
 */
export function Link({ prefetch, ...props }: ComponentProps<typeof NextLink>) {
  const idle = usePageIdle();
  return <NextLink {...props} prefetch={idle ? prefetch : false} />;
}
