import { age, ago, until } from "@/lib/format";

/*
 * Times relative to now ("5 s ago"). The server renders them and the browser
 * hydrates seconds later (more under load), when the text is already
 * different: suppressHydrationWarning keeps the server's text until the next
 * render (the next poll) instead of React throwing away the page's HTML over
 * the mismatch (error #418) and rendering it again on the client. Render every
 * clock-dependent text through these, never `ago()`/`age()`/`until()` in JSX.
 * suppressHydrationWarning covers the element's own text only, so each one
 * renders a single string.
 */

/** "3 minutes ago", "just now". */
export function Ago({ iso, title }: { iso: string; title?: string }) {
  return (
    <time dateTime={iso} title={title} suppressHydrationWarning>
      {ago(iso)}
    </time>
  );
}

/** "3 minutes" (for "… ago" or "waiting …" inside a sentence). */
export function Age({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {age(iso)}
    </time>
  );
}

/** "in 3 days", "now" (a deadline). `now` for a component that ticks its own clock. */
export function Until({ iso, now }: { iso: string; now?: number }) {
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {until(iso, now)}
    </time>
  );
}

/** Any other text computed from the clock about the moment `iso` ("next attempt in 4 s"). */
export function ClockText({ iso, text }: { iso: string; text: string }) {
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {text}
    </time>
  );
}
