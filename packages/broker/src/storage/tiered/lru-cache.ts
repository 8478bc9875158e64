/**
 * A byte-bounded LRU cache (Map iteration order is insertion order; a hit
 * re-inserts the entry), used for chunks of remote `.log` objects and parsed
 * remote indexes. Entries larger than the whole bound are not cached.
 */
export class LruCache<V> {
  private readonly map = new Map<string, { value: V; bytes: number }>();
  private total = 0;
  hits = 0;
  misses = 0;
  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.map.get(key);
    if (old) {
      this.total -= old.bytes;
      this.map.delete(key);
    }
    if (bytes > this.maxBytes) return;
    this.map.set(key, { value, bytes });
    this.total += bytes;
    for (const [k, e] of this.map) {
      if (this.total <= this.maxBytes) break;
      this.map.delete(k);
      this.total -= e.bytes;
    }
  }

  deleteWhere(pred: (key: string) => boolean): void {
    for (const [k, e] of this.map) {
      if (!pred(k)) continue;
      this.map.delete(k);
      this.total -= e.bytes;
    }
  }

  get size(): number {
    return this.total;
  }
}
