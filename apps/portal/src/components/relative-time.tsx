import { age, ago } from "@/lib/format";

/*
 * Times relative to now ("5 s ago"). The server renders them and the browser
 * hydrates seconds later (more under load), when the text is already
 * different: suppressHydrationWarning keeps the server's text until the next
 * render (the next poll) instead of React throwing away the page's HTML over
 * the mismatch (error #418) and rendering it again on the client.
 */

/** "3 minutes ago", "just now". */
export function Ago({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {ago(iso)}
    </time>
  );
}

/** "3 minutes" (for "… ago" inside a sentence). */
export function Age({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {age(iso)}
    </time>
  );
}
