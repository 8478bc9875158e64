"use client";

import { useEffect, useState } from "react";

/** `value`, but only after it stopped changing for `ms` — filters apply as you type without a request per keystroke. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
