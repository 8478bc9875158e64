/** key → values, in one pass and without copying a list per row (callers group thousands of rows). */
export function groupBy<T, K, V>(rows: Iterable<T>, key: (row: T) => K, value: (row: T) => V): Map<K, V[]> {
  const out = new Map<K, V[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(value(r));
    else out.set(k, [value(r)]);
  }
  return out;
}
