import { useSyncExternalStore } from "react";

const noSubscription = () => () => undefined;

/**
 * False in the server's HTML and while the page hydrates, true once React
 * handles the page in the browser. A controlled text field is read-only until
 * then: React resets a controlled textarea to its first value when it
 * hydrates, so text typed or pasted earlier (a slow phone, a quick paste)
 * would vanish without a word.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
