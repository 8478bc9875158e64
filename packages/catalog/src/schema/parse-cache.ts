/**
 * Parsed schemas by definition text. A product's stored versions are parsed
 * once per process instead of once per check (a transitive check against 50
 * versions would otherwise parse 50 schemas); the bound keeps a long-running
 * portal that sees many schemas from growing. Map insertion order is the
 * eviction order, refreshed on every hit.
 */
export class ParseCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly parse: (definition: string) => T,
    private readonly limit = 512,
  ) {}

  get(definition: string): T {
    const hit = this.entries.get(definition);
    if (hit !== undefined) {
      this.entries.delete(definition);
      this.entries.set(definition, hit);
      return hit;
    }
    const value = this.parse(definition);
    this.entries.set(definition, value);
    if (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }
}
